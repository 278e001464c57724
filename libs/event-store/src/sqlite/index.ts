export * from './sqlite-event-store';
export * from './open-sqlite-file';
export * from './sqlite-driver';
export * from './sqlite-migrations';
export * from './sqlite-seal-store';
export * from './prune-snapshots';
export * from '../subscriptions/sqlite-checkpoint-store';
