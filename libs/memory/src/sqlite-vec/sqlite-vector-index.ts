import { openSqliteFile } from '@rewind/event-store/sqlite';
import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import * as sqliteVec from 'sqlite-vec';
import type { EmbeddingModelInfo } from '../embedding-model';
import type { MemoryItem } from '../memory-item';
import { searchTokens } from '../search-tokens';
import { withoutContext } from '../turn-context';
import type { IndexedItem, MemoryScope, PendingVectors, ScoredItem, VectorIndex } from '../vector-index';
import { BinaryCodeCache } from './binary-code-cache';
import { shredIndexFile } from './shred-index-file';
import { ftsQuery, MATCH_BUDGET, PLAN_FIGURES_TTL_MS, scopeWordOf, scopeWordsOf } from './fts-query';
import { setUpIndexTables } from './index-tables';
import { blobOf, dot, NO_VECTOR, storedVector, toItem, type ItemRow } from './item-rows';

export interface SqliteVectorIndexOptions {
  /** The index file (`:memory:` for a throwaway one). Kept beside the event store's file, not in it, so indexing never holds the store's write lock. */
  filename: string;
  /**
   * How vectors are searched. `binary` (default): a brute-force Hamming scan over 1-bit codes
   * (sign bits, held in memory) finds `oversample` × limit candidates, re-ranked by exact
   * cosine on the full vectors — exact for a scope of up to that many items. `float`:
   * brute-force cosine over full vectors (exact, slower).
   */
  quantization?: 'binary' | 'float';
  /** Candidates per wanted hit in binary mode (default 4; at most 256 beyond the limit). */
  oversample?: number;
}

/** Candidates re-ranked beyond the wanted hits, at most (each costs a row read of ~1.5 KB). */
const MAX_CANDIDATES = 256;

/**
 * The embedded vector index, one SQLite file: full vectors and 1-bit codes (sign bits, made by
 * sqlite-vec's `vec_quantize_binary`) for similarity search, FTS5 (BM25) for text. Tables are
 * named after the model and its dimension, so switching models starts a fresh index instead
 * of mixing vector spaces.
 *
 * Index format 2 keeps the codes in a plain table clustered by tenant and scans them in memory
 * (`BinaryCodeCache`); format 1 kept them in a sqlite-vec `vec0` table, whose top-k selection
 * costs O(n·k). Opening a format-1 file converts it once (codes from the stored vectors).
 */
export class SqliteVectorIndex implements VectorIndex {
  readonly db: Database.Database;
  private readonly ownsConnection: boolean;
  private prefix = '';
  private dimensions = 0;
  private statements: ReturnType<SqliteVectorIndex['prepare']> | undefined;
  private codes: BinaryCodeCache | undefined;
  /** Whether the full-text table keeps the previous turn in a column of its own (files made since stemming). */
  private contextColumn = false;
  private readonly scopeSizes = new LRUCache<string, number>({ max: 10_000, ttl: PLAN_FIGURES_TTL_MS });
  private readonly documentFrequencies = new LRUCache<string, number>({ max: 50_000, ttl: PLAN_FIGURES_TTL_MS });

  constructor(
    private readonly options: SqliteVectorIndexOptions,
    /** Another index's connection to the same file (see sibling()): this one neither sets it up nor closes it. */
    shared?: Database.Database,
  ) {
    this.ownsConnection = !shared;
    if (shared) {
      this.db = shared;
      return;
    }
    this.db = openSqliteFile(options.filename, 'NORMAL');
    // Freed pages are zeroed: the text of a deleted (shredded) item must not linger in free space.
    this.db.pragma('secure_delete = ON');
    sqliteVec.load(this.db);
  }

  /**
   * An index over the same file and connection, to be opened for another model: language routing
   * keeps one per model, and their writes and shreds then share one connection's transactions
   * (an index in `:memory:` too, which a second connection would not see).
   */
  sibling(): SqliteVectorIndex {
    return new SqliteVectorIndex(this.options, this.db);
  }

  private get searchedColumns(): string {
    return this.contextColumn ? '{tokens context}' : 'tokens';
  }

  private get quantization() {
    return this.options.quantization ?? 'binary';
  }

  async open(model: EmbeddingModelInfo): Promise<void> {
    const slug = model.id.toLowerCase().replace(/[^a-z0-9]+/g, '_');
    this.prefix = `memory_${slug}_${model.dimensions}`;
    this.dimensions = model.dimensions;
    const p = this.prefix;
    ({ contextColumn: this.contextColumn } = await setUpIndexTables(this.db, p));
    this.statements = this.prepare();
    this.codes = new BinaryCodeCache(this.db, p, Math.ceil(model.dimensions / 8));
  }

  private prepare() {
    const p = this.prefix;
    return {
      findRowid: this.db.prepare<[string], { rowid: number }>(`SELECT rowid FROM ${p}_items WHERE id = ?`),
      insertItem: this.db.prepare(
        `INSERT INTO ${p}_items (id, tenant_id, session_id, event_id, version, global_position, role, occurred_at, chunk, text, memory_key, vector)
         VALUES (@id, @tenantId, @sessionId, @eventId, @version, @globalPosition, @role, @occurredAt, @chunk, @text, @memoryKey, @vector)
         ON CONFLICT (id) DO NOTHING`,
      ),
      insertPending: this.db.prepare<[number | bigint, string | null]>(`INSERT INTO ${p}_pending (item_rowid, context) VALUES (?, ?)`),
      // Newest first: under a backlog the items just written (those a user asks about next) get their vectors first.
      newestPending: this.db.prepare<[number], ItemRow & { context: string | null }>(
        `SELECT i.rowid, i.*, p.context FROM ${p}_pending p JOIN ${p}_items i ON i.rowid = p.item_rowid ORDER BY p.item_rowid DESC LIMIT ?`,
      ),
      findPending: this.db.prepare<[string], { rowid: number; tenant_id: string; session_id: string }>(
        `SELECT i.rowid, i.tenant_id, i.session_id FROM ${p}_items i JOIN ${p}_pending p ON p.item_rowid = i.rowid WHERE i.id = ?`,
      ),
      setVector: this.db.prepare<[Buffer, number]>(`UPDATE ${p}_items SET vector = ? WHERE rowid = ?`),
      deletePending: this.db.prepare<[number]>(`DELETE FROM ${p}_pending WHERE item_rowid = ?`),
      countPending: this.db.prepare<[], { n: number; oldest: number | null }>(
        `SELECT count(*) AS n, (SELECT i.global_position FROM ${p}_pending q JOIN ${p}_items i ON i.rowid = q.item_rowid ORDER BY q.item_rowid LIMIT 1) AS oldest FROM ${p}_pending`,
      ),
      codesHigh: this.db.prepare<[], number>(`SELECT rowid_high FROM ${p}_codes_high`).pluck(),
      setCodesHigh: this.db.prepare<[number | bigint]>(`UPDATE ${p}_codes_high SET rowid_high = max(rowid_high, ?)`),
      markCodesRewritten: this.db.prepare(`UPDATE ${p}_deletions SET n = n + 1`),
      deleteItem: this.db.prepare(`DELETE FROM ${p}_items WHERE rowid = ?`),
      insertFts: this.db.prepare<[number | bigint, string, string, string]>(
        this.contextColumn
          ? `INSERT INTO ${p}_fts (rowid, tokens, scope, context) VALUES (?, ?, ?, ?)`
          : // A file made before the context column has none: the previous turn joins the turn's words.
            `INSERT INTO ${p}_fts (rowid, tokens, scope) SELECT a, c || ' ' || b, s FROM (SELECT ? AS a, ? AS b, ? AS s, ? AS c)`,
      ),
      deleteFts: this.db.prepare(`DELETE FROM ${p}_fts WHERE rowid = ?`),
      insertCode: this.db.prepare(`INSERT INTO ${p}_codes (tenant_id, item_rowid, session_id, code) VALUES (?, ?, ?, vec_quantize_binary(?))`),
      deleteCode: this.db.prepare(`DELETE FROM ${p}_codes WHERE tenant_id = (SELECT tenant_id FROM ${p}_items WHERE rowid = @rowid) AND item_rowid = @rowid`),
      quantize: this.db.prepare<[Buffer], Buffer>(`SELECT vec_quantize_binary(?)`).pluck(),
      scanTenant: this.db.prepare<[string], ItemRow>(`SELECT rowid, * FROM ${p}_items WHERE tenant_id = ?`),
      scanSession: this.db.prepare<[string, string], ItemRow>(`SELECT rowid, * FROM ${p}_items WHERE tenant_id = ? AND session_id = ?`),
      // Keyword search returns rowids and ranks only; the rows (with their vectors) are read for the hits alone.
      ftsRanked: this.db.prepare<[string, number], { rowid: number; rank: number }>(
        `SELECT rowid, rank FROM ${p}_fts WHERE ${p}_fts MATCH ? ORDER BY rank LIMIT ?`,
      ),
      ftsRankedInScope: this.db.prepare<[string, string, string | null, string | null, number], { rowid: number; rank: number }>(
        // CROSS JOIN keeps FTS5 the outer loop (else SQLite may scan the session's rows and run the MATCH once per row).
        `SELECT f.rowid, f.rank FROM ${p}_fts f CROSS JOIN ${p}_items i ON i.rowid = f.rowid
         WHERE ${p}_fts MATCH ? AND i.tenant_id = ? AND (? IS NULL OR i.session_id = ?) ORDER BY f.rank LIMIT ?`,
      ),
      scopeRowids: this.db.prepare<[string, string | null, string | null], { rowid: number }>(
        `SELECT rowid FROM ${p}_items WHERE tenant_id = ? AND (? IS NULL OR session_id = ?)`,
      ),
      rowsByRowid: this.db.prepare<[string], ItemRow>(`SELECT rowid, * FROM ${p}_items WHERE rowid IN (SELECT value FROM json_each(?))`),
      vectorsByRowid: this.db.prepare<[string], { rowid: number; vector: Buffer }>(
        `SELECT rowid, vector FROM ${p}_items WHERE rowid IN (SELECT value FROM json_each(?))`,
      ),
      addTerm: this.db.prepare<[number, string]>(`INSERT INTO temp.${p}_terms (rowid, word) VALUES (?, ?)`),
      termsOf: this.db.prepare<[], { doc: number; term: string }>(`SELECT doc, term FROM temp.${p}_terms_vocab`),
      clearTerms: this.db.prepare(`DELETE FROM temp.${p}_terms`),
      documentFrequency: this.db.prepare<[string], { doc: number }>(`SELECT doc FROM ${p}_fts_vocab WHERE term = ?`),
      countAll: this.db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${p}_items`),
      // One statement per scope kind: `(? IS NULL OR session_id = ?)` would keep SQLite from seeking the
      // (tenant, session) index and count the whole tenant (~3 ms at 100 000 items) for a session.
      countTenant: this.db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM ${p}_items WHERE tenant_id = ?`),
      countSession: this.db.prepare<[string, string], { n: number }>(`SELECT count(*) AS n FROM ${p}_items WHERE tenant_id = ? AND session_id = ?`),
    };
  }

  private get s() {
    if (!this.statements) throw new Error('The memory index was used before open(model): call open() with the embedding model first.');
    return this.statements;
  }

  private removeRow(rowid: number): void {
    this.s.deleteCode.run({ rowid });
    this.s.deleteFts.run(rowid);
    this.s.deleteItem.run(rowid);
  }

  private checkDimensions({ item, vector }: IndexedItem): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`Item ${item.id} has a ${vector.length}-dimensional vector, but this index holds ${this.dimensions} dimensions.`);
    }
  }

  /** The item's row and its words (its previous turn's in their own column); its row id, or null when its id is in the index already. */
  private insertRow(item: MemoryItem, vector: Buffer): number | bigint | null {
    const s = this.s;
    const { changes, lastInsertRowid } = s.insertItem.run({ ...withoutContext(item), memoryKey: item.memoryKey ?? null, vector });
    if (changes === 0) return null;
    const [own, context] = [searchTokens(item.text).join(' '), searchTokens(item.context ?? '').join(' ')];
    s.insertFts.run(lastInsertRowid, own, scopeWordsOf(item), context);
    return lastInsertRowid;
  }

  async upsert(items: readonly IndexedItem[]): Promise<void> {
    const s = this.s;
    this.db
      .transaction(() => {
        for (const indexed of items) {
          this.checkDimensions(indexed);
          const { item, vector } = indexed;
          const existing = s.findRowid.get(item.id);
          if (existing) this.removeRow(existing.rowid);
          const blob = blobOf(vector);
          const rowid = this.insertRow(item, blob)!;
          s.insertCode.run(item.tenantId, rowid, item.sessionId, blob);
          s.setCodesHigh.run(rowid);
        }
      })
      .immediate();
    this.codes?.changed();
  }

  /** Stage 1: rows and words now, vectors later (attachVectors); the backlog is a table, so it outlives a restart. */
  async admit(items: readonly MemoryItem[]): Promise<number> {
    const s = this.s;
    // IMMEDIATE (here and in every write that reads first): the event loop (stage 1) and the worker
    // thread (stage 2) write this file on two connections; a deferred transaction that read before
    // the other's commit cannot take the write lock and fails at once ("database is locked"), busy
    // timeout or not. Taking the lock first makes the writer wait its turn instead.
    return this.db
      .transaction(() => {
        let admitted = 0;
        for (const item of items) {
          const rowid = this.insertRow(item, NO_VECTOR);
          if (rowid === null) continue;
          s.insertPending.run(rowid, item.context ?? null);
          admitted++;
        }
        return admitted;
      })
      .immediate();
  }

  async pendingItems(limit: number): Promise<MemoryItem[]> {
    if (limit <= 0) return [];
    return this.s.newestPending.all(limit).map((row) => ({ ...toItem(row), ...(row.context !== null ? { context: row.context } : {}) }));
  }

  async attachVectors(items: readonly IndexedItem[]): Promise<number> {
    const s = this.s;
    const attached = this.db
      .transaction(() => {
        let n = 0;
        let rewritten = false;
        for (const indexed of items) {
          this.checkDimensions(indexed);
          const row = s.findPending.get(indexed.item.id);
          if (!row) continue;
          const blob = blobOf(indexed.vector);
          s.setVector.run(blob, row.rowid);
          s.insertCode.run(row.tenant_id, row.rowid, row.session_id, blob);
          s.deletePending.run(row.rowid);
          // Out of row-id order (stage 2 takes the newest first, so under a backlog every batch after the first is):
          // caches that read codes by row id read them all again, once per such batch.
          if (!rewritten && row.rowid < s.codesHigh.get()!) rewritten = s.markCodesRewritten.run().changes > 0;
          s.setCodesHigh.run(row.rowid);
          n++;
        }
        return n;
      })
      .immediate();
    this.codes?.changed();
    return attached;
  }

  async pendingVectors(): Promise<PendingVectors> {
    const { n, oldest } = this.s.countPending.get()!;
    return { items: n, oldestPosition: oldest };
  }

  async searchVector(vector: Float32Array, scope: MemoryScope, limit: number): Promise<ScoredItem[]> {
    if (limit <= 0) return [];
    const s = this.s;
    let scored: { row: ItemRow; score: number }[];
    if (this.quantization === 'float') {
      const rows = scope.sessionId === undefined ? s.scanTenant.all(scope.tenantId) : s.scanSession.all(scope.tenantId, scope.sessionId);
      // Items awaiting their vectors are found by keywords only.
      scored = rows.filter((row) => row.vector.length > 0).map((row) => ({ row, score: dot(vector, row.vector) }));
    } else {
      const k = Math.max(limit, Math.min(limit * (this.options.oversample ?? 4), MAX_CANDIDATES));
      const candidates = this.codes!.nearest(scope, s.quantize.get(blobOf(vector))!, k);
      // Re-ranked on their vectors alone; the whole rows are read for the hits only.
      const best = s.vectorsByRowid
        .all(JSON.stringify(candidates))
        .map((v) => ({ rowid: v.rowid, score: dot(vector, v.vector) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
      const rows = new Map(this.rowsByRowid(best.map((b) => b.rowid)).map((row) => [row.rowid, row]));
      scored = best.flatMap(({ rowid, score }) => {
        const row = rows.get(rowid);
        return row ? [{ row, score }] : [];
      });
    }
    return scored
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ row, score }) => ({ item: toItem(row), score, ...storedVector(row) }));
  }

  private rowsByRowid(rowids: number[]): ItemRow[] {
    return rowids.length === 0 ? [] : this.s.rowsByRowid.all(JSON.stringify(rowids));
  }

  async searchText(query: string, scope: MemoryScope, limit: number): Promise<ScoredItem[]> {
    const terms = this.selectiveTerms(query);
    if (terms.length === 0 || limit <= 0) return [];
    // Two plans, measured at 100 000 items. With the scope's word in the FTS query, FTS5 walks the
    // scope's posting list (~0.3 µs an item; a session's is short); without it, FTS5 ranks every match
    // and other scopes' rows are dropped by rowid (~1–4 µs a match). A tenant holding most items is
    // searched ~3× faster the second way; a session, several times faster the first.
    const matches = terms.reduce((sum, t) => sum + t.doc, 0);
    const words = terms.map((t) => t.word);
    const ranked =
      this.scopeSize(scope) < 4 * matches
        ? this.s.ftsRanked.all(ftsQuery(words, scopeWordOf(scope), this.searchedColumns), limit)
        : this.s.ftsRankedInScope.all(ftsQuery(words, null, this.searchedColumns), scope.tenantId, scope.sessionId ?? null, scope.sessionId ?? null, limit);
    const rows = new Map(this.rowsByRowid(ranked.map((r) => r.rowid)).map((row) => [row.rowid, row]));
    // FTS5's rank is bm25() negated (lower is better): flip it so that higher is better. The scope is checked
    // again on the rows (the scope word is a hash): a row of another scope is never returned.
    return ranked.flatMap(({ rowid, rank }) => {
      const row = rows.get(rowid);
      if (!row || row.tenant_id !== scope.tenantId || (scope.sessionId !== undefined && row.session_id !== scope.sessionId)) return [];
      return [{ item: toItem(row), score: -rank, ...storedVector(row) }];
    });
  }

  /** Items in the scope, counted at most every PLAN_FIGURES_TTL_MS (a plan choice, not a result). */
  private scopeSize(scope: MemoryScope): number {
    const key = `${scope.tenantId}\u0000${scope.sessionId ?? ''}`;
    let n = this.scopeSizes.get(key);
    if (n === undefined) this.scopeSizes.set(key, (n = this.countIn(scope)));
    return n;
  }

  /** Documents holding the word (fts5vocab reads ~0.6 ms a word at 100 000 items): cached once seen. */
  private documentFrequency(word: string): number {
    let doc = this.documentFrequencies.get(word);
    if (doc === undefined) {
      doc = this.s.documentFrequency.get(word)?.doc ?? 0;
      if (doc > 0) this.documentFrequencies.set(word, doc);
    }
    return doc;
  }

  /**
   * The query's words minus those in more than a twentieth of the documents (at least 1 000):
   * they weigh little in BM25 (idf ≤ ln 20, against ~9 for a rare word) but make FTS5 rank every
   * document holding them — three words in ~9 % of 100 000 items each cost ~15 ms to rank, the
   * rarest of them alone ~4.5 ms. When all are common the rarest is kept, unless it is in more
   * than a fifth of the documents: then keyword search finds nothing and vectors carry the meaning.
   * Then MATCH_BUDGET: the words kept, rarest first, match at most that many documents in all.
   */
  private selectiveTerms(query: string): { word: string; doc: number }[] {
    const stems = this.termsOf([...new Set(searchTokens(query, { dropStopWords: true }))]);
    const total = this.s.countAll.get()!.n;
    const ceiling = Math.max(1_000, total / 20);
    const frequency = [...stems]
      .map(([term, word]) => ({ word, doc: this.documentFrequency(term) }))
      .filter((w) => w.doc > 0)
      .sort((a, b) => a.doc - b.doc);
    const selective = frequency.filter((w) => w.doc <= ceiling);
    // Only common words: the rarest stands in for them, unless it is in a fifth of everything (no keyword signal left).
    const kept = selective.length > 0 || frequency.length === 0 ? selective : frequency[0]!.doc <= 4 * ceiling ? [frequency[0]!] : [];
    let matches = 0;
    return kept.filter((w) => (matches += w.doc) <= MATCH_BUDGET);
  }

  /**
   * Each word's term in the full-text index (its stem, by SQLite's own tokenizer), one word per
   * term: "paintings" and "painting" are one search word. The words are searched as they are
   * (FTS5 stems them again); the terms give their document frequencies.
   */
  private termsOf(words: readonly string[]): Map<string, string> {
    const s = this.s;
    return this.db.transaction(() => {
      words.forEach((word, i) => s.addTerm.run(i + 1, word));
      const terms = new Map<string, string>();
      for (const { doc, term } of s.termsOf.all()) if (!terms.has(term)) terms.set(term, words[doc - 1]!);
      s.clearTerms.run();
      return terms;
    })();
  }

  async deleteScope(scope: MemoryScope): Promise<number> {
    const rowids = this.s.scopeRowids.all(scope.tenantId, scope.sessionId ?? null, scope.sessionId ?? null);
    this.db
      .transaction(() => {
        for (const { rowid } of rowids) this.removeRow(rowid);
      })
      .immediate();
    this.codes?.changed();
    return rowids.length;
  }

  async shredScope(scope: MemoryScope): Promise<number> {
    const removed = shredIndexFile(this.db, scope);
    this.codes?.changed();
    return removed;
  }

  async count(scope?: MemoryScope): Promise<number> {
    return scope ? this.countIn(scope) : this.s.countAll.get()!.n;
  }

  private countIn(scope: MemoryScope): number {
    return (scope.sessionId === undefined ? this.s.countTenant.get(scope.tenantId) : this.s.countSession.get(scope.tenantId, scope.sessionId))!.n;
  }

  /** Every item's id and text, in id order (to compare two indexes: `rewind memory rebuild --verify`). */
  async listItems(): Promise<{ id: string; text: string; globalPosition: number }[]> {
    return this.db
      .prepare<[], { id: string; text: string; global_position: number }>(`SELECT id, text, global_position FROM ${this.prefix}_items ORDER BY id`)
      .all()
      .map((r) => ({ id: r.id, text: r.text, globalPosition: r.global_position }));
  }

  async close(): Promise<void> {
    if (this.ownsConnection && this.db.open) this.db.close();
  }
}
