// The sagas' PostgreSQL adapter: leases on unfinished rollbacks shared by every process of a deployment.
export * from './postgres-rollback-lease-store';
export { migrateSagas, sagaMigrations } from './migrations';
export * from './open-rollback-lease-store';
