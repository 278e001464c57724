export * from './api-key-store';
export * from './in-memory-api-key-store';
export * from './bootstrap-admin-key';
export * from './cached-api-key-store';
export * from './token-bucket';
export * from './encryption';
