import { applySqliteMigrations, type SqliteMigrationSet } from '@rewind/event-store/sqlite';
import type Database from 'better-sqlite3';
import { CONTEXT_WEIGHT, TOKENIZER } from './fts-query';

/**
 * The index tables of one model (prefix `p`), as numbered migrations recorded under the store
 * `memory-index:<p>` in the index file's `schema_versions` (the runner the event store and the
 * other SQLite stores use). Frozen once released: a later table or column is a new version here.
 * Version 1 is what every open used to run, idempotent, so a file made before the runner (any
 * format) is adopted as it is.
 */
export function indexMigrations(p: string): SqliteMigrationSet {
  return {
    store: `memory-index:${p}`,
    migrations: [
      {
        version: 1,
        name: 'items, full-text, codes, deletions, backlog; a format-1 file converted; FTS5 ranking',
        up: (db) => {
          createTables(db, p);
          convertFormat1(db, p);
          setRanking(db, p);
        },
      },
    ],
  };
}

/** Applies the model's pending index migrations (one IMMEDIATE transaction; an up-to-date file takes no lock). */
export function migrateIndexTables(db: Database.Database, p: string): void {
  applySqliteMigrations(db, indexMigrations(p));
}

/** Whether the model's full-text table keeps the previous turn in a column of its own (files made since stemming). */
export function hasContextColumn(db: Database.Database, p: string): boolean {
  return /\bcontext\b/.test(ftsSqlOf(db, p).replace(/tokenize\s*=\s*'[^']*'/i, ''));
}

export function ftsSqlOf(db: Database.Database, p: string): string {
  return db.prepare<[string], { sql: string }>(`SELECT sql FROM sqlite_master WHERE name = ?`).get(`${p}_fts`)!.sql;
}

function createTables(db: Database.Database, p: string): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${p}_items (
      rowid INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      tenant_id TEXT NOT NULL,
      session_id TEXT NOT NULL,
      event_id TEXT NOT NULL,
      version INTEGER NOT NULL,
      global_position INTEGER NOT NULL,
      role TEXT NOT NULL,
      occurred_at TEXT NOT NULL,
      chunk INTEGER NOT NULL,
      text TEXT NOT NULL,
      memory_key TEXT,
      vector BLOB NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${p}_items_scope ON ${p}_items (tenant_id, session_id);
    CREATE VIRTUAL TABLE IF NOT EXISTS ${p}_fts USING fts5(tokens, scope, context, tokenize = '${TOKENIZER}');
    CREATE VIRTUAL TABLE IF NOT EXISTS ${p}_fts_vocab USING fts5vocab(${p}_fts, 'row');
    -- 1-bit codes clustered by tenant: a tenant's codes are one range, read once into memory.
    CREATE TABLE IF NOT EXISTS ${p}_codes (
      tenant_id TEXT NOT NULL,
      item_rowid INTEGER NOT NULL,
      session_id TEXT NOT NULL,
      code BLOB NOT NULL,
      PRIMARY KEY (tenant_id, item_rowid)
    ) WITHOUT ROWID;
    -- Covers a session's codes: loading them reads one range of the index.
    CREATE INDEX IF NOT EXISTS ${p}_codes_session ON ${p}_codes (tenant_id, session_id, item_rowid, code);
    -- Counts deleted items: a process holding codes in memory reads them again when it changes.
    CREATE TABLE IF NOT EXISTS ${p}_deletions (n INTEGER NOT NULL);
    INSERT INTO ${p}_deletions (n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ${p}_deletions);
    CREATE TRIGGER IF NOT EXISTS ${p}_items_deleted AFTER DELETE ON ${p}_items BEGIN UPDATE ${p}_deletions SET n = n + 1; END;
    -- Stage 2's backlog: items searchable by keywords awaiting their vectors, with the previous turn they are embedded with.
    CREATE TABLE IF NOT EXISTS ${p}_pending (item_rowid INTEGER PRIMARY KEY, context TEXT);
    CREATE TRIGGER IF NOT EXISTS ${p}_items_pending_gone AFTER DELETE ON ${p}_items BEGIN DELETE FROM ${p}_pending WHERE item_rowid = old.rowid; END;
    -- The highest row id given a code: caches read new codes by row id, so a lower one given later must make them read all again.
    -- Made when no item awaits a vector yet (pending items come with this table): every item's row has its code.
    CREATE TABLE IF NOT EXISTS ${p}_codes_high (rowid_high INTEGER NOT NULL);
    INSERT INTO ${p}_codes_high (rowid_high) SELECT coalesce((SELECT max(rowid) FROM ${p}_items), 0) WHERE NOT EXISTS (SELECT 1 FROM ${p}_codes_high);
  `);
}

/**
 * A format-1 file kept its codes in a vec0 table and every vector again in a table clustered by
 * session: make the codes from the stored vectors, then drop both.
 */
function convertFormat1(db: Database.Database, p: string): void {
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(`${p}_vec`) === undefined) return;
  db.exec(`INSERT OR IGNORE INTO ${p}_codes (tenant_id, item_rowid, session_id, code)
                SELECT tenant_id, rowid, session_id, vec_quantize_binary(vector) FROM ${p}_items`);
  db.exec(`DROP TABLE ${p}_vec; DROP TABLE IF EXISTS ${p}_session_vectors`);
}

/** FTS5's ranking and deletion settings, kept in the full-text table's own configuration (persistent). */
function setRanking(db: Database.Database, p: string): void {
  // The scope column only filters: it must not weigh in BM25 (it would favour short texts).
  // The previous turn's words weigh CONTEXT_WEIGHT of the turn's own: the turn is the hit.
  db.prepare(`INSERT INTO ${p}_fts (${p}_fts, rank) VALUES ('rank', ?)`).run(hasContextColumn(db, p) ? `bm25(1.0, 0.0, ${CONTEXT_WEIGHT})` : 'bm25(1.0, 0.0)');
  // A deleted row's words leave the full-text index at once (not at some later merge).
  db.prepare(`INSERT INTO ${p}_fts (${p}_fts, rank) VALUES ('secure-delete', 1)`).run();
}
