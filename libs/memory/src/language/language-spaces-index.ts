import type { EmbeddingModelInfo, EmbeddingSpace } from '../embedding-model';
import type { MemoryItem } from '../memory-item';
import type { IndexedItem, MemoryScope, ModelItems, PendingVectors, ScoredItem, VectorIndex } from '../vector-index';
import { detectLanguage } from './detect-language';

export interface LanguageSpacesIndexOptions {
  /**
   * Which keyword lists a question searches: `all` (default), every model's, merged by BM25 score,
   * so an English question naming "Hilton" finds a Chinese turn that wrote it; `question`, only
   * its own language's model's. On the bench's mixed tenant both give the same recall@5 and MRR
   * (BENCHMARKS.md, MEM.mixed.*): the tie goes to the words a question shares across languages.
   */
  keywords?: 'question' | 'all';
}

interface OpenSpace extends EmbeddingSpace {
  index: VectorIndex;
}

/**
 * The index of a language-routed model (LanguageRoutedEmbeddingModel): one index per model, each
 * opened for that model alone (on SQLite, that model's tables in the same file), so a model's
 * vectors only ever meet vectors of their own space. An item is stored in the index of the block
 * its vector fills; a vector search runs in each index whose block of the query is non-zero. Opened
 * for a plain model (no spaces), it is that model's index, as before.
 */
export class LanguageSpacesIndex implements VectorIndex {
  private spaces: OpenSpace[] = [];
  private dimensions = 0;

  constructor(
    /** The first model's index; shreds go through it (an adapter's shred covers every model's storage). */
    private readonly base: VectorIndex,
    /** Another index on the same storage, for each further model. */
    private readonly sibling: () => VectorIndex,
    private readonly options: LanguageSpacesIndexOptions = {},
  ) {
    // Siblings are of the base's kind: two stages when it has them (SQLite), one otherwise (Qdrant).
    if (base.admit && base.pendingItems && base.attachVectors && base.pendingVectors) {
      this.admit = (items) => this.admitItems(items);
      this.pendingItems = (limit) => this.newestPending(limit);
      this.attachVectors = (items) => this.attachBlocks(items);
      this.pendingVectors = () => this.pendingInAll();
    }
  }

  async open(model: EmbeddingModelInfo): Promise<void> {
    const spaces: readonly EmbeddingSpace[] = model.spaces ?? [{ id: model.id, dimensions: model.dimensions, offset: 0, language: 'en' }];
    const opened: OpenSpace[] = [];
    for (const [i, space] of spaces.entries()) {
      const index = i === 0 ? this.base : (this.spaces.find((s) => s.id === space.id)?.index ?? this.sibling());
      await index.open({ id: space.id, dimensions: space.dimensions });
      opened.push({ ...space, index });
    }
    this.spaces = opened;
    this.dimensions = model.dimensions;
  }

  private get opened(): OpenSpace[] {
    if (this.spaces.length === 0) throw new Error('The memory index was used before open(model): call open() with the embedding model first.');
    return this.spaces;
  }

  async upsert(items: readonly IndexedItem[]): Promise<void> {
    const bySpace = new Map<OpenSpace, IndexedItem[]>();
    for (const { item, vector } of items) {
      if (vector.length !== this.dimensions)
        throw new Error(`Item ${item.id} has a ${vector.length}-dimensional vector, but this index holds ${this.dimensions} dimensions.`);
      const space = this.blockOf(vector);
      bySpace.set(space, [...(bySpace.get(space) ?? []), { item, vector: vector.slice(space.offset, space.offset + space.dimensions) }]);
    }
    for (const [space, batch] of bySpace) await space.index.upsert(batch);
  }

  /**
   * Two stages when every model's index has them. An item awaiting its vector is kept in the
   * tables of its language's model, as LanguageRoutedEmbeddingModel routes its text (the writer
   * embeds `languageOf` the item's own text): its vector, when it comes, is that model's block.
   */
  readonly admit?: (items: readonly MemoryItem[]) => Promise<number>;
  readonly pendingItems?: (limit: number) => Promise<MemoryItem[]>;
  readonly attachVectors?: (items: readonly IndexedItem[]) => Promise<number>;
  readonly pendingVectors?: () => Promise<PendingVectors>;

  private async admitItems(items: readonly MemoryItem[]): Promise<number> {
    let admitted = 0;
    for (const [space, batch] of this.byLanguage(items, (item) => item)) admitted += await space.index.admit!(batch);
    return admitted;
  }

  /** The newest pending items of every model's tables, newest (by log position) first, as each model's table gives them. */
  private async newestPending(limit: number): Promise<MemoryItem[]> {
    const lists = await Promise.all(this.opened.map((space) => space.index.pendingItems!(limit)));
    return lists
      .flat()
      .sort((a, b) => b.globalPosition - a.globalPosition)
      .slice(0, limit);
  }

  private async attachBlocks(items: readonly IndexedItem[]): Promise<number> {
    let attached = 0;
    for (const [space, batch] of this.byLanguage(items, (indexed) => indexed.item)) {
      attached += await space.index.attachVectors!(batch.map(({ item, vector }) => this.blockIn(space, item, vector)));
    }
    return attached;
  }

  private async pendingInAll(): Promise<PendingVectors> {
    const each = await Promise.all(this.opened.map((space) => space.index.pendingVectors!()));
    const oldest = each.flatMap((p) => (p.oldestPosition === null ? [] : [p.oldestPosition]));
    return { items: each.reduce((n, p) => n + p.items, 0), oldestPosition: oldest.length ? Math.min(...oldest) : null };
  }

  /** Items grouped by the model their language routes them to. */
  private byLanguage<T>(entries: readonly T[], itemOf: (entry: T) => MemoryItem): Map<OpenSpace, T[]> {
    const groups = new Map<OpenSpace, T[]>();
    for (const entry of entries) {
      const language = detectLanguage(itemOf(entry).text);
      const space = this.opened.find((s) => s.language === language) ?? this.opened[0]!;
      groups.set(space, [...(groups.get(space) ?? []), entry]);
    }
    return groups;
  }

  /** The item's vector in its space's own dimensions (its block of the sum space). */
  private blockIn(space: OpenSpace, item: MemoryItem, vector: Float32Array): IndexedItem {
    if (vector.length !== this.dimensions)
      throw new Error(`Item ${item.id} has a ${vector.length}-dimensional vector, but this index holds ${this.dimensions} dimensions.`);
    return { item, vector: vector.slice(space.offset, space.offset + space.dimensions) };
  }

  async searchVector(vector: Float32Array, scope: MemoryScope, limit: number): Promise<ScoredItem[]> {
    const lists = await Promise.all(
      this.opened
        .filter((space) => normOf(vector, space) > 0)
        .map(async (space) => this.widen(space, await space.index.searchVector(vector.slice(space.offset, space.offset + space.dimensions), scope, limit))),
    );
    // Scores are dot products in the sum space (a block's share of the query's unit length): comparable across lists.
    return lists
      .flat()
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }

  async searchText(query: string, scope: MemoryScope, limit: number): Promise<ScoredItem[]> {
    const language = detectLanguage(query);
    const own = this.opened.find((s) => s.language === language) ?? this.opened[0]!;
    const searched = (this.options.keywords ?? 'all') === 'all' ? this.opened : [own];
    const lists = await Promise.all(
      searched.map(async (space) => {
        const hits = await space.index.searchText(query, scope, limit);
        // A hit of another language's model has no vector the question's can be compared with (their
        // cosine is 0 by construction, not by meaning): it comes without one, so that fusion ranks it by
        // its words on a fair scale (as an item awaiting its vector) instead of as the least similar.
        return space === own ? this.widen(space, hits) : hits.map(({ vector: _vector, ...hit }) => hit);
      }),
    );
    return lists.length === 1
      ? lists[0]!
      : lists
          .flat()
          .sort((a, b) => b.score - a.score)
          .slice(0, limit);
  }

  async deleteScope(scope: MemoryScope): Promise<number> {
    let removed = 0;
    for (const space of this.opened) removed += await space.index.deleteScope(scope);
    return removed;
  }

  /** Needs no open(): the adapter's shred walks every model's storage (those of models not opened here too). */
  shredScope(scope: MemoryScope): Promise<number> {
    return this.base.shredScope(scope);
  }

  async count(scope?: MemoryScope): Promise<number> {
    let n = 0;
    for (const space of this.opened) n += await space.index.count(scope);
    return n;
  }

  /**
   * Each model's items (which models are in use) and, with two stages, each model's backlog (a burst
   * of one language shows in its model); given a scope, each model's items of that scope alone.
   */
  async models(scope?: MemoryScope): Promise<ModelItems[]> {
    return Promise.all(
      this.opened.map(async ({ id, dimensions, language, index }) => ({
        id,
        dimensions,
        language,
        items: await index.count(scope),
        ...(this.pendingVectors && !scope ? { pendingVectors: (await index.pendingVectors!()).items } : {}),
      })),
    );
  }

  /** Every model's items (their ids and texts), for `rewind memory rebuild --verify`, when the adapter can list them. */
  async listItems(): Promise<{ id: string; text: string; globalPosition: number }[]> {
    const all = [];
    for (const { index } of this.opened) {
      const listable = index as Partial<{ listItems(): Promise<{ id: string; text: string; globalPosition: number }[]> }>;
      if (!listable.listItems) throw new Error('This memory index cannot list its items.');
      all.push(...(await listable.listItems()));
    }
    return all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async close(): Promise<void> {
    // Siblings first: on SQLite they share the base index's connection, which the base closes.
    for (const { index } of this.spaces.slice(1)) await index.close();
    await this.base.close();
  }

  private blockOf(vector: Float32Array): OpenSpace {
    let best = this.opened[0]!;
    let bestNorm = -1;
    for (const space of this.opened) {
      const norm = normOf(vector, space);
      if (norm > bestNorm) [best, bestNorm] = [space, norm];
    }
    return best;
  }

  /** A space's hits with their vectors back in the sum space (recall scores keyword hits by them against the question). */
  private widen(space: OpenSpace, hits: ScoredItem[]): ScoredItem[] {
    if (this.opened.length === 1) return hits;
    return hits.map((hit) => {
      if (!hit.vector) return hit;
      const wide = new Float32Array(this.dimensions);
      wide.set(hit.vector, space.offset);
      return { ...hit, vector: wide };
    });
  }
}

function normOf(vector: Float32Array, space: EmbeddingSpace): number {
  let norm = 0;
  for (let i = space.offset; i < space.offset + space.dimensions; i++) norm += vector[i]! * vector[i]!;
  return norm;
}
