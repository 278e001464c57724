import { LRUCache } from 'lru-cache';
import type { Pool, PoolClient } from 'pg';
import type { EmbeddingModelInfo } from '../embedding-model';
import type { MemoryItem, MemoryRole } from '../memory-item';
import { searchTokens } from '../search-tokens';
import { CONTEXT_WEIGHT, MATCH_BUDGET, PLAN_FIGURES_TTL_MS } from '../sqlite-vec/fts-query';
import { blobOf, dot, vectorOf } from '../sqlite-vec/item-rows';
import type { IndexedItem, MemoryScope, PendingVectors, ScoredItem, VectorIndex } from '../vector-index';
import { PostgresCodeCache, type CodeRow } from './code-cache';
import { indexSql, type IndexSql } from './index-sql';
import { migrateMemory } from './migrations';

export type PostgresVectorIndexOptions = {
  /** The schema of memory's tables (default `rewind`, the event store's). */
  schema?: string;
  /** Candidates per wanted hit for the Hamming prefilter (default 4; at most 256 beyond the limit), as the SQLite index. */
  oversample?: number;
} & (
  | { /** The caller's pool: close() leaves it open. */ pool: Pool }
  | { connectionString: string; /** Connections of this index's own pool (default 3). */ poolSize?: number }
);

/** Candidates re-ranked beyond the wanted hits, at most. */
const MAX_CANDIDATES = 256;

/** A row of memory_items as the index reads it. */
interface ItemRow {
  seq: string;
  id: string;
  tenant_id: string;
  session_id: string;
  event_id: string;
  version: number;
  global_position: string;
  role: string;
  occurred_at: string;
  chunk: number;
  text: string;
  memory_key: string | null;
  vector: Buffer | null;
}

/**
 * The memory index in the shared PostgreSQL database (stock PostgreSQL 14+, no extension), so that
 * every API process and the worker of a deployment recall from one index that one indexer writes.
 * The SQLite index's design on plain tables: 1-bit codes (sign bits) in a narrow table, held in
 * memory per searched scope and scanned by Hamming distance (PostgresCodeCache), find `oversample` ×
 * limit candidates, re-ranked here by exact cosine on their float vectors; keywords through a
 * tsvector column (english: stemmed, like FTS5's Porter) and a GIN index, ranked by BM25 computed in
 * SQL from the same figures FTS5 uses (idf per word, the previous turn's words at CONTEXT_WEIGHT,
 * length normalization), so that recall's fusion sees scores shaped like FTS5's. Tables come from
 * memory's versioned, advisory-locked migrations: any number of processes may open it at once.
 */
export class PostgresVectorIndex implements VectorIndex {
  private poolPromise: Promise<Pool> | undefined;
  private ownsPool: boolean;
  private readonly schema: string;
  private readonly sql: IndexSql;
  private space: string | undefined;
  private dimensions = 0;
  private migrated: Promise<void> | undefined;
  private readonly scopeSizes = new LRUCache<string, number>({ max: 10_000, ttl: PLAN_FIGURES_TTL_MS });
  private readonly documentFrequencies = new LRUCache<string, number>({ max: 50_000, ttl: PLAN_FIGURES_TTL_MS });
  private readonly lexemes = new LRUCache<string, string[]>({ max: 50_000 });
  private meanLength: { value: number; at: number } | undefined;
  private codes: PostgresCodeCache | undefined;

  constructor(private readonly options: PostgresVectorIndexOptions) {
    this.schema = options.schema ?? 'rewind';
    if (!/^[a-z_][a-z0-9_]*$/.test(this.schema)) throw new Error(`"${this.schema}" is not a valid schema name: use lower-case letters, digits and "_".`);
    this.sql = indexSql(`"${this.schema}"`);
    this.ownsPool = !('pool' in options);
  }

  /** The pool (its own made on first use: `pg` is an optional peer dependency, loaded only when this index is used). */
  pool(): Promise<Pool> {
    const { options } = this;
    this.poolPromise ??=
      'pool' in options
        ? Promise.resolve(options.pool)
        : import('pg').then(({ Pool }) => {
            const pool = new Pool({ connectionString: options.connectionString, max: options.poolSize ?? 3 });
            // An idle connection the server closed (a restart, an outage) is dropped by the pool; without a
            // listener its 'error' is an uncaught exception that ends the process (seen in the outage spec).
            // The next query opens a new connection or fails with the reason.
            pool.on('error', () => undefined);
            return pool;
          });
    return this.poolPromise;
  }

  /** An index over the same pool, to be opened for another model (language routing keeps one per model). */
  sibling(): PostgresVectorIndex {
    const sibling = new PostgresVectorIndex(this.options);
    sibling.poolPromise = this.pool();
    sibling.ownsPool = false;
    return sibling;
  }

  private migrate(): Promise<void> {
    this.migrated ??= this.pool()
      .then((pool) => migrateMemory(pool, this.schema))
      .catch((error: unknown) => {
        this.migrated = undefined;
        throw error;
      });
    return this.migrated;
  }

  async open(model: EmbeddingModelInfo): Promise<void> {
    await this.migrate();
    this.space = `${model.id}@${model.dimensions}`;
    this.dimensions = model.dimensions;
    const space = this.space;
    this.codes = new PostgresCodeCache(
      async (scope, after) => {
        const pool = await this.pool();
        const { rows } =
          scope.sessionId === undefined
            ? await pool.query<CodeRow>(this.sql.codesOfTenant, [space, scope.tenantId, after])
            : await pool.query<CodeRow>(this.sql.codesOfSession, [space, scope.tenantId, after, scope.sessionId]);
        return rows;
      },
      Math.ceil(model.dimensions / 8),
    );
  }

  private get s(): string {
    if (!this.space) throw new Error('The memory index was used before open(model): call open() with the embedding model first.');
    return this.space;
  }

  private checkDimensions({ item, vector }: IndexedItem): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`Item ${item.id} has a ${vector.length}-dimensional vector, but this index holds ${this.dimensions} dimensions.`);
    }
  }

  /** The batch's columns as the statements' array parameters ($2…$16). */
  private batchParameters(items: readonly MemoryItem[], vectors: readonly (Buffer | null)[], keepContext: boolean): unknown[] {
    return [
      items.map((i) => i.id),
      items.map((i) => i.tenantId),
      items.map((i) => i.sessionId),
      items.map((i) => i.eventId),
      items.map((i) => i.version),
      items.map((i) => i.globalPosition),
      items.map((i) => i.role),
      items.map((i) => i.occurredAt),
      items.map((i) => i.chunk),
      items.map((i) => i.text),
      items.map((i) => i.memoryKey ?? null),
      // The previous turn is kept only while the item awaits the vector it is embedded into; its words are searched always.
      items.map((i) => (keepContext ? (i.context ?? null) : null)),
      items.map((i) => searchTokens(i.text).join(' ')),
      items.map((i) => searchTokens(i.context ?? '').join(' ')),
      vectors,
    ];
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await (await this.pool()).connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Codes for the rows just given these vectors (by item id). */
  private async writeCodes(client: PoolClient, rows: { seq: string; id: string; tenant_id: string; session_id: string }[], vectors: Map<string, Float32Array>) {
    if (rows.length === 0) return;
    await client.query(this.sql.upsertCodes, [
      this.s,
      rows.map((r) => r.seq),
      rows.map((r) => r.tenant_id),
      rows.map((r) => r.session_id),
      rows.map((r) => signBits(vectors.get(r.id)!)),
    ]);
  }

  async upsert(items: readonly IndexedItem[]): Promise<void> {
    const space = this.s;
    items.forEach((i) => this.checkDimensions(i));
    // The last of an id wins, as when the batch is written one by one.
    const byId = new Map(items.map((i) => [i.item.id, i]));
    const batch = [...byId.values()];
    if (batch.length === 0) return;
    await this.transaction(async (client) => {
      const { rows } = await client.query<{ seq: string; id: string; tenant_id: string; session_id: string }>(this.sql.upsertItems, [
        space,
        ...this.batchParameters(
          batch.map((b) => b.item),
          batch.map((b) => blobOf(b.vector)),
          false,
        ),
      ]);
      await this.writeCodes(client, rows, new Map(batch.map((b) => [b.item.id, b.vector])));
    });
  }

  async admit(items: readonly MemoryItem[]): Promise<number> {
    const space = this.s;
    const batch = [...new Map(items.map((i) => [i.id, i])).values()];
    if (batch.length === 0) return 0;
    const { rowCount } = await (
      await this.pool()
    ).query(this.sql.admitItems, [
      space,
      ...this.batchParameters(
        batch,
        batch.map(() => null),
        true,
      ),
    ]);
    return rowCount ?? 0;
  }

  async pendingItems(limit: number): Promise<MemoryItem[]> {
    if (limit <= 0) return [];
    const { rows } = await (await this.pool()).query<ItemRow & { context: string | null }>(this.sql.pendingItems, [this.s, limit]);
    return rows.map((row) => ({ ...toItem(row), ...(row.context !== null ? { context: row.context } : {}) }));
  }

  async attachVectors(items: readonly IndexedItem[]): Promise<number> {
    const space = this.s;
    items.forEach((i) => this.checkDimensions(i));
    const batch = [...new Map(items.map((i) => [i.item.id, i])).values()];
    if (batch.length === 0) return 0;
    return this.transaction(async (client) => {
      const { rows } = await client.query<{ seq: string; id: string; tenant_id: string; session_id: string }>(this.sql.attachVectors, [
        space,
        batch.map((b) => b.item.id),
        batch.map((b) => blobOf(b.vector)),
      ]);
      await this.writeCodes(client, rows, new Map(batch.map((b) => [b.item.id, b.vector])));
      return rows.length;
    });
  }

  async pendingVectors(): Promise<PendingVectors> {
    const { rows } = await (await this.pool()).query<{ n: number; oldest: string | null }>(this.sql.pendingVectors, [this.s]);
    return { items: rows[0]!.n, oldestPosition: rows[0]!.oldest === null ? null : Number(rows[0]!.oldest) };
  }

  async searchVector(vector: Float32Array, scope: MemoryScope, limit: number): Promise<ScoredItem[]> {
    if (limit <= 0) return [];
    const k = Math.max(limit, Math.min(limit * (this.options.oversample ?? 4), MAX_CANDIDATES));
    const seqs = await this.codes!.nearest(scope, signBits(vector), k);
    if (seqs.length === 0) return [];
    const { rows } = await (await this.pool()).query<ItemRow>(this.sql.rowsBySeq, [seqs]);
    // Re-ranked on the full vectors; the scope is checked on the rows too (an item may have left it since the codes were read).
    return rows
      .filter((row) => row.tenant_id === scope.tenantId && (scope.sessionId === undefined || row.session_id === scope.sessionId))
      .filter((row) => row.vector !== null)
      .map((row) => ({ row, score: dot(vector, row.vector!) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ row, score }) => ({ item: toItem(row), score, vector: vectorOf(row.vector!) }));
  }

  async searchText(query: string, scope: MemoryScope, limit: number): Promise<ScoredItem[]> {
    if (limit <= 0) return [];
    const terms = await this.selectiveTerms(query);
    if (terms.length === 0) return [];
    const total = await this.countIn();
    const idf = terms.map((t) => Math.log(1 + (total - t.doc + 0.5) / (t.doc + 0.5)));
    const { rows } = await (
      await this.pool()
    ).query<ItemRow & { score: number }>(this.sql.rankText, [
      this.s,
      scope.tenantId,
      scope.sessionId ?? null,
      terms.map((t) => tsqueryLexeme(t.lexeme)).join(' | '),
      terms.map((t) => t.lexeme),
      idf,
      CONTEXT_WEIGHT,
      (await this.meanItemLength()) || 1,
      limit,
    ]);
    return rows.map((row) => ({ item: toItem(row), score: Number(row.score), ...(row.vector ? { vector: vectorOf(row.vector) } : {}) }));
  }

  /**
   * The query's lexemes minus those in more than a twentieth of the items (at least 1 000), as the
   * SQLite index keeps them (see its selectiveTerms): common words weigh little in BM25 but make every
   * item holding them ranked. When all are common, the rarest stands in for them unless it is in a
   * fifth of everything; then MATCH_BUDGET bounds the items ranked, rarest words first.
   */
  private async selectiveTerms(query: string): Promise<{ lexeme: string; doc: number }[]> {
    const lexemes = await this.lexemesOf([...new Set(searchTokens(query, { dropStopWords: true }))]);
    const total = await this.countIn();
    const ceiling = Math.max(1_000, total / 20);
    const frequency = (await Promise.all(lexemes.map(async (lexeme) => ({ lexeme, doc: await this.documentFrequency(lexeme, 4 * ceiling + 1) }))))
      .filter((w) => w.doc > 0)
      .sort((a, b) => a.doc - b.doc);
    const selective = frequency.filter((w) => w.doc <= ceiling);
    const kept = selective.length > 0 || frequency.length === 0 ? selective : frequency[0]!.doc <= 4 * ceiling ? [frequency[0]!] : [];
    let matches = 0;
    return kept.filter((w) => (matches += w.doc) <= MATCH_BUDGET);
  }

  /** The lexemes of the words, in the words column's reduction (one query for the words not seen before). */
  private async lexemesOf(words: readonly string[]): Promise<string[]> {
    const unseen = words.filter((w) => !this.lexemes.has(w));
    if (unseen.length > 0) {
      const { rows } = await (await this.pool()).query<{ word: string; lexeme: string }>(this.sql.lexemesOf, [unseen]);
      for (const word of unseen) this.lexemes.set(word, []);
      for (const { word, lexeme } of rows) this.lexemes.get(word)!.push(lexeme);
    }
    return [...new Set(words.flatMap((w) => this.lexemes.get(w) ?? []))];
  }

  /** Items of this model holding the lexeme, counted up to `cap` (cached for PLAN_FIGURES_TTL_MS once seen). */
  private async documentFrequency(lexeme: string, cap: number): Promise<number> {
    const key = `${this.s}\u0000${lexeme}`;
    let n = this.documentFrequencies.get(key);
    if (n !== undefined) return n;
    const { rows } = await (await this.pool()).query<{ n: number }>(this.sql.documentFrequency, [this.s, tsqueryLexeme(lexeme), Math.ceil(cap)]);
    n = rows[0]!.n;
    if (n > 0) this.documentFrequencies.set(key, n);
    return n;
  }

  private async meanItemLength(): Promise<number> {
    if (this.meanLength && Date.now() - this.meanLength.at < PLAN_FIGURES_TTL_MS) return this.meanLength.value;
    const { rows } = await (await this.pool()).query<{ mean: number }>(this.sql.meanLength, [this.s]);
    this.meanLength = { value: rows[0]!.mean, at: Date.now() };
    return this.meanLength.value;
  }

  /** Items of this model (cached for PLAN_FIGURES_TTL_MS: it only plans the keyword search). */
  private async countIn(): Promise<number> {
    let n = this.scopeSizes.get(this.s);
    if (n === undefined) this.scopeSizes.set(this.s, (n = await this.count()));
    return n;
  }

  async deleteScope(scope: MemoryScope): Promise<number> {
    const { rowCount } = await (await this.pool()).query(this.sql.deleteInSpace, [this.s, scope.tenantId, scope.sessionId ?? null]);
    return rowCount ?? 0;
  }

  /**
   * Every model's items of the scope, with their codes and words; then VACUUM, so that their rows'
   * space is reclaimed rather than left as dead tuples. (PostgreSQL may keep the bytes in free space
   * and its WAL until overwritten: the text in the log itself is what crypto-shredding destroys.)
   */
  async shredScope(scope: MemoryScope): Promise<number> {
    await this.migrate();
    const { rowCount } = await (await this.pool()).query(this.sql.shred, [scope.tenantId, scope.sessionId ?? null]);
    if (rowCount) await (await this.pool()).query(this.sql.vacuum);
    return rowCount ?? 0;
  }

  async count(scope?: MemoryScope): Promise<number> {
    const { rows } = !scope
      ? await (await this.pool()).query<{ n: number }>(this.sql.countAll, [this.s])
      : scope.sessionId === undefined
        ? await (await this.pool()).query<{ n: number }>(this.sql.countTenant, [this.s, scope.tenantId])
        : await (await this.pool()).query<{ n: number }>(this.sql.countSession, [this.s, scope.tenantId, scope.sessionId]);
    return rows[0]!.n;
  }

  /** Every item's id and text, in id order (to compare two indexes: `rewind memory rebuild --verify`). */
  async listItems(): Promise<{ id: string; text: string; globalPosition: number }[]> {
    const { rows } = await (await this.pool()).query<{ id: string; text: string; global_position: string }>(this.sql.listItems, [this.s]);
    return rows.map((r) => ({ id: r.id, text: r.text, globalPosition: Number(r.global_position) }));
  }

  async close(): Promise<void> {
    if (this.ownsPool && this.poolPromise) await (await this.poolPromise).end();
    this.poolPromise = undefined;
  }
}

/** A vector's 1-bit code: bit i (of byte i / 8, lowest first) set where component i is positive (sqlite-vec's vec_quantize_binary). */
export function signBits(vector: Float32Array): Buffer {
  const code = Buffer.alloc(Math.ceil(vector.length / 8));
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) code[i >> 3]! |= 1 << (i & 7);
  return code;
}

/** A lexeme as a tsquery operand: quoted, so that no tsquery syntax in it reaches the parser. */
function tsqueryLexeme(lexeme: string): string {
  return `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

function toItem(row: ItemRow): MemoryItem {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    sessionId: row.session_id,
    eventId: row.event_id,
    version: row.version,
    globalPosition: Number(row.global_position),
    role: row.role as MemoryRole,
    occurredAt: row.occurred_at,
    chunk: row.chunk,
    text: row.text,
    ...(row.memory_key !== null ? { memoryKey: row.memory_key } : {}),
  };
}
