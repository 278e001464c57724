export * from './api-key-store';
export * from './sqlite-api-key-store';
export * from './in-memory-api-key-store';
export * from './bootstrap-admin-key';
export * from './postgres-api-key-store';
export * from './cached-api-key-store';
