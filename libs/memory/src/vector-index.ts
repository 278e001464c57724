import type { EmbeddingModelInfo } from './embedding-model';
import type { MemoryItem } from './memory-item';

/**
 * The index could not be opened (its file locked past every retry, its server down): recall is
 * unavailable until it can be, and the next recall tries again. Writes to sessions are not affected.
 */
export class IndexUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IndexUnavailableError';
  }
}

/** Which items a search may return: always one tenant; optionally one session. */
export interface MemoryScope {
  tenantId: string;
  sessionId?: string;
}

export interface ScoredItem {
  item: MemoryItem;
  /** Higher is better; comparable only within one result list. */
  score: number;
  /**
   * The item's vector, when the adapter read it anyway (the SQLite index does): recall then scores
   * a keyword hit by its similarity too, instead of as if it had none.
   */
  vector?: Float32Array;
}

/** Stage 2's backlog: items searchable by keywords, not yet by similarity. */
export interface PendingVectors {
  items: number;
  oldestPosition: number | null;
}

/** Per-model counts, for status: which models hold items, and (two stages) how many of them await their vectors. */
export interface ModelItems {
  id: string;
  dimensions: number;
  language?: string;
  items: number;
  /** Stage 2's backlog in this model's storage (absent with one stage). */
  pendingVectors?: number;
}

export interface IndexedItem {
  item: MemoryItem;
  vector: Float32Array;
}

/**
 * The vector index port: vectors for similarity search and the same items' text for
 * keyword (BM25-like) search. Every adapter passes `testing/vector-index.contract.ts`.
 * Upserts are idempotent by item id, so an indexer may deliver an event twice.
 */
export interface VectorIndex {
  /** Prepares storage for vectors of this model (a collection or table per model and dimension). */
  open(model: EmbeddingModelInfo): Promise<void>;
  upsert(items: readonly IndexedItem[]): Promise<void>;
  /** Nearest items to `vector`, best first. */
  searchVector(vector: Float32Array, scope: MemoryScope, limit: number): Promise<ScoredItem[]>;
  /** Items matching the words of `query`, best first (BM25 or the adapter's closest equivalent). */
  searchText(query: string, scope: MemoryScope, limit: number): Promise<ScoredItem[]>;
  /** Removes every item of the scope (a session, or a whole tenant); tells how many. */
  deleteScope(scope: MemoryScope): Promise<number>;
  /**
   * Crypto-shredding's part in memory: removes every item of the scope from every model's
   * collection (not only the open one), leaving none of their text in the storage's free
   * space where the adapter controls it; tells how many. Needs no open() (no model).
   */
  shredScope(scope: MemoryScope): Promise<number>;
  count(scope?: MemoryScope): Promise<number>;
  /**
   * Two-stage indexing, where the adapter has it (SQLite; not Qdrant, which is written in one stage).
   * Stage 1: the items become searchable by keywords at once, without vectors (cheap: no model);
   * an item already in the index is left as it is (a redelivered event). Tells how many were new.
   */
  admit?(items: readonly MemoryItem[]): Promise<number>;
  /**
   * Stage 2's work: up to `limit` items admitted without a vector, newest first (with their context, which is
   * embedded too): under writes faster than the model, what was just written — what is asked about next — gets
   * its vector first, and the older backlog (found by keywords meanwhile) waits for a quieter moment.
   */
  pendingItems?(limit: number): Promise<MemoryItem[]>;
  /**
   * Stage 2: gives items admitted by `admit` their vectors, making them searchable by similarity.
   * An item no longer awaiting one (shredded or deleted meanwhile, or given it already) is left
   * alone: a vector never brings an item back, nor doubles one. Tells how many were attached.
   */
  attachVectors?(items: readonly IndexedItem[]): Promise<number>;
  /** Items awaiting their vectors, and the global position of the oldest (null when none). */
  pendingVectors?(): Promise<PendingVectors>;
  /** Each model's items, where one index keeps several models' (language routing); without it, the open model's are count(). */
  models?(): Promise<ModelItems[]>;
  close(): Promise<void>;
}
