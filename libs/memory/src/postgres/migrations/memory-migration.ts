/**
 * A numbered migration of memory's PostgreSQL tables, run by the event store's runner. Its SQL
 * is frozen once released: a change to the schema is a new migration, never an edit of an old one.
 */
export type { Migration as MemoryMigration } from '@rewind/event-store/postgres';
