export * from './memory-config';
export * from './memory-runtime';
export * from './shred-memory';
