export * from './postgres-event-store';
export * from './postgres-seal-store';
export * from './prune-snapshots';
export {
  applyMigrations,
  applyMigrationsInPool,
  eventStoreMigrations,
  pendingMigrations,
  SCHEMA_MIGRATION_LOCK,
  type Migration,
  type MigrationSet,
} from './migrations';
export * from './transaction';
export * from '../subscriptions/postgres-checkpoint-store';
export * from '../subscriptions/postgres-checkpoint-migrations';
