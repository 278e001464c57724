export * from './worker';
export * from './worker-config';
