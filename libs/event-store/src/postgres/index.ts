export * from './postgres-event-store';
export * from './postgres-seal-store';
export * from './prune-snapshots';
export { pendingMigrations } from './migrations';
export * from './transaction';
