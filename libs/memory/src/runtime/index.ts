export * from './memory-config';
export * from './memory-runtime';
