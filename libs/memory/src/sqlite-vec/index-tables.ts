import type Database from 'better-sqlite3';
import { ExponentialBackoff, handleWhen, noJitterGenerator, retry } from 'cockatiel';
import { tokenizerOf } from './fts-query';
import { ftsSqlOf, hasContextColumn, migrateIndexTables } from './index-migrations';

/**
 * Another connection held the file's write lock past the busy timeout (5 s; a long indexing
 * batch, a rebuild): try the setup again, 6 times more at most (about a minute in all).
 */
const SETUP_RETRY = retry(
  handleWhen((error) => /^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown }).code))),
  { maxAttempts: 6, backoff: new ExponentialBackoff({ generator: noJitterGenerator, initialDelay: 100, maxDelay: 2_000 }) },
);

/**
 * Sets up the index's tables for one model (prefix `p`) on this connection, and tells whether its
 * full-text table keeps the previous turn in a column of its own (files made since stemming).
 * The tables come from the versioned migrations (index-migrations.ts): an up-to-date file costs a
 * read, an older one is migrated in one IMMEDIATE transaction, retried while another connection
 * holds the write lock past its busy timeout (the API's event loop and its memory threads open the
 * same file at once). What is left here is this connection's own: the temporary term tables.
 */
export function setUpIndexTables(db: Database.Database, p: string): Promise<{ contextColumn: boolean }> {
  return SETUP_RETRY.execute(() => {
    migrateIndexTables(db, p);
    return db.transaction(() => setUpConnection(db, p))();
  });
}

/** This connection's temporary tables for splitting a question into the index's words. */
function setUpConnection(db: Database.Database, p: string): { contextColumn: boolean } {
  // The words of a question are reduced the way its index reduced its documents: a file made before
  // stemming keeps its plain words (and works as before), until `rewind memory rebuild` makes it anew.
  const tokenizer = tokenizerOf(ftsSqlOf(db, p));
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.${p}_terms USING fts5(word, tokenize = '${tokenizer}');
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.${p}_terms_vocab USING fts5vocab('temp', '${p}_terms', 'instance');
  `);
  // A file made before the context column searches a turn and its previous turn as one text.
  return { contextColumn: hasContextColumn(db, p) };
}
