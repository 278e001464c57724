export * from './event-store';
export * from './in-memory/in-memory-event-store';
export * from './sqlite/sqlite-event-store';
export * from './sqlite/open-sqlite-file';
export * from './postgres/postgres-event-store';
