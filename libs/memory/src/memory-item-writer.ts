import type { EmbeddingModel, EmbeddingModelInfo, EmbedOptions } from './embedding-model';
import type { MemoryItem } from './memory-item';
import type { VectorIndex } from './vector-index';

/**
 * Where the indexer's CPU-heavy half runs: embedding items and writing them to the index.
 * The indexer itself (reading the log, extracting items, policies, the checkpoint) stays
 * cheap, so it can run on the API's event loop while a writer runs in a worker thread
 * (`@rewind/memory/runtime`'s ThreadItemWriter) or, in library mode, in the same thread.
 */
/** Where embedding and index writes run: a worker thread, or the indexer's own thread. */
export type MemoryIndexerPlacement = 'thread' | 'process';

export interface MemoryItemWriter {
  readonly runsIn: MemoryIndexerPlacement;
  /** Loads the model and opens the index for it; tells the model's id and dimension. */
  open(): Promise<EmbeddingModelInfo>;
  /** Embeds and upserts these items (idempotent by item id). */
  write(items: readonly MemoryItem[]): Promise<void>;
  /**
   * Stage 2 of two-stage indexing (an index with `admit`): embeds up to `limit` of the items the
   * index holds without vectors, newest first, and attaches their vectors; tells how many it took (0: none left).
   */
  embedPending?(limit: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Stage 1 of two-stage indexing somewhere else than the indexer's thread (e.g. a worker thread
 * with its own connection to the same index): makes items searchable by keywords.
 */
export interface MemoryItemAdmitter {
  readonly runsIn: MemoryIndexerPlacement;
  /** Opens its connection to the index for the model the writer loaded (the tables are named after it). */
  open(model: EmbeddingModelInfo): Promise<void>;
  /** The items' rows and words, committed when this resolves (idempotent by item id); tells how many were new. */
  admit(items: readonly MemoryItem[]): Promise<number>;
  close(): Promise<void>;
}

/** Embeds and writes in the caller's thread. */
export class LocalItemWriter implements MemoryItemWriter {
  readonly runsIn: MemoryIndexerPlacement = 'process';
  private opened: Promise<EmbeddingModelInfo> | undefined;

  constructor(private readonly parts: { model: EmbeddingModel; index: VectorIndex }) {}

  open(): Promise<EmbeddingModelInfo> {
    this.opened ??= (async () => {
      const info = await this.parts.model.info();
      await this.parts.index.open(info);
      return info;
    })();
    this.opened.catch(() => (this.opened = undefined));
    return this.opened;
  }

  async write(items: readonly MemoryItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.open();
    const vectors = await this.parts.model.embed(...embedArguments(items));
    await this.parts.index.upsert(items.map((item, i) => ({ item, vector: vectors[i]! })));
  }

  async embedPending(limit: number): Promise<number> {
    await this.open();
    const { index, model } = this.parts;
    if (!index.pendingItems || !index.attachVectors) throw new Error('This memory index is written in one stage: it keeps no items awaiting vectors.');
    const items = await index.pendingItems(limit);
    if (items.length === 0) return 0;
    const vectors = await model.embed(...embedArguments(items));
    await index.attachVectors(items.map((item, i) => ({ item, vector: vectors[i]! })));
    return items.length;
  }

  /** The model and index belong to whoever passed them in: closing the writer leaves them open. */
  async close(): Promise<void> {}
}

/** An item is embedded with its previous turn (how, is the model's: see EmbedOptions.contexts) and routed by its own words. */
function embedArguments(items: readonly MemoryItem[]): [string[], EmbedOptions] {
  return [items.map((item) => item.text), { contexts: items.map((item) => item.context) }];
}
