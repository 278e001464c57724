/**
 * A numbered migration of memory's PostgreSQL tables. Its SQL is frozen once released: a
 * change to the schema is a new migration, never an edit of an old one.
 */
export interface MemoryMigration {
  version: number;
  name: string;
  /** The SQL over the quoted schema name `s`. */
  sql: string;
}
