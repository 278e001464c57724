/**
 * A numbered schema migration. Its SQL is frozen once released (a database that applied it
 * never sees it again): a change to the schema is a new migration, never an edit of an old one.
 */
export interface Migration {
  version: number;
  name: string;
  /** The SQL over the quoted schema name `s`. */
  sql: string;
}
