import type Database from 'better-sqlite3';
import { ExponentialBackoff, handleWhen, noJitterGenerator, retry } from 'cockatiel';
import { CONTEXT_WEIGHT, TOKENIZER, tokenizerOf } from './fts-query';

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
 * One IMMEDIATE transaction, retried while another connection holds the write lock: the API's event
 * loop and its memory threads open the same file at once, and a CREATE VIRTUAL TABLE run in
 * autocommit reads the schema before it takes the lock — if another connection commits in between,
 * FTS5's constructor fails ("vtable constructor failed") instead of waiting.
 */
export function setUpIndexTables(db: Database.Database, p: string): Promise<{ contextColumn: boolean }> {
  return SETUP_RETRY.execute(() => db.transaction(() => setUp(db, p)).immediate());
}

/** Creates what is missing of a model's tables (prefix `p`), converts an old format, sets FTS5's ranking. */
function setUp(db: Database.Database, p: string): { contextColumn: boolean } {
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
  convertFormat1(db, p);
  // The words of a question are reduced the way its index reduced its documents: a file made before
  // stemming keeps its plain words (and works as before), until `rewind memory rebuild` makes it anew.
  const ftsSql = db.prepare<[string], { sql: string }>(`SELECT sql FROM sqlite_master WHERE name = ?`).get(`${p}_fts`)!.sql;
  const tokenizer = tokenizerOf(ftsSql);
  // A file made before the context column searches a turn and its previous turn as one text.
  const contextColumn = /\bcontext\b/.test(ftsSql.replace(/tokenize\s*=\s*'[^']*'/i, ''));
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.${p}_terms USING fts5(word, tokenize = '${tokenizer}');
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.${p}_terms_vocab USING fts5vocab('temp', '${p}_terms', 'instance');
  `);
  // The scope column only filters: it must not weigh in BM25 (it would favour short texts).
  // The previous turn's words weigh CONTEXT_WEIGHT of the turn's own: the turn is the hit.
  db.prepare(`INSERT INTO ${p}_fts (${p}_fts, rank) VALUES ('rank', ?)`).run(contextColumn ? `bm25(1.0, 0.0, ${CONTEXT_WEIGHT})` : 'bm25(1.0, 0.0)');
  // A deleted row's words leave the full-text index at once (not at some later merge).
  db.prepare(`INSERT INTO ${p}_fts (${p}_fts, rank) VALUES ('secure-delete', 1)`).run();
  return { contextColumn };
}

/**
 * A format-1 file kept its codes in a vec0 table and every vector again in a table clustered by
 * session: make the codes from the stored vectors, then drop both.
 */
function convertFormat1(db: Database.Database, p: string): void {
  if (!tableExists(db, `${p}_vec`)) return;
  db.exec(`INSERT OR IGNORE INTO ${p}_codes (tenant_id, item_rowid, session_id, code)
                SELECT tenant_id, rowid, session_id, vec_quantize_binary(vector) FROM ${p}_items`);
  db.exec(`DROP TABLE ${p}_vec; DROP TABLE IF EXISTS ${p}_session_vectors`);
}

function tableExists(db: Database.Database, name: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(name) !== undefined;
}
