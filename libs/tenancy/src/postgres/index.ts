export * from '../postgres-api-key-store';
export * from '../encryption/postgres-data-key-store';
export * from '../encryption/postgres-data-key-migrations';
