export * from './postgres-event-store';
export { pendingMigrations } from './migrations';
