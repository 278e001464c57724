// Memory's PostgreSQL adapter: policies shared by every process of a distributed deployment.
export * from './postgres-policy-store';
export { memoryMigrations, migrateMemory, type MemoryMigration } from './migrations';
export * from './postgres-vector-index';
