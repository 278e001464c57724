export * from '../postgres-api-key-store';
