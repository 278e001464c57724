export * from './memory-config';
export * from './memory-runtime';
export * from './memory-parts';
export * from './memory-thread-pool';
export * from './shred-memory';
