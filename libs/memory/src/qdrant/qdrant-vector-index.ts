import { createHash } from 'node:crypto';
import type { QdrantClient } from '@qdrant/js-client-rest' with { 'resolution-mode': 'import' };
import type { EmbeddingModelInfo } from '../embedding-model';
import type { MemoryItem } from '../memory-item';
import { searchTokens } from '../search-tokens';
import { indexedText, withoutContext } from '../turn-context';
import type { IndexedItem, MemoryScope, ScoredItem, VectorIndex } from '../vector-index';

export interface QdrantVectorIndexOptions {
  /** e.g. http://127.0.0.1:6333 (QDRANT_URL). */
  url: string;
  apiKey?: string;
  /** Collection name prefix (default `rewind_memory`); the model id and dimension are appended. */
  collectionPrefix?: string;
}

type Payload = MemoryItem & { tokens: string };

/** Qdrant point ids are UUIDs or integers: a UUID derived from the item id keeps upserts idempotent. */
export function pointId(itemId: string): string {
  const h = createHash('sha1').update(itemId).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

function toItem(payload: Payload): MemoryItem {
  const { tokens: _tokens, ...item } = payload;
  return item;
}

function scopeFilter(scope: MemoryScope) {
  return {
    must: [
      { key: 'tenantId', match: { value: scope.tenantId } },
      ...(scope.sessionId !== undefined ? [{ key: 'sessionId', match: { value: scope.sessionId } }] : []),
    ],
  };
}

/**
 * The distributed vector index: one Qdrant collection per model and dimension (cosine),
 * tenant and session as indexed keyword payload fields (every search filters by tenant),
 * and a full-text payload index on the items' search tokens for keyword search. Qdrant's
 * text filter only says whether a point matches; matches are ranked here with BM25 over
 * the candidates' tokens.
 */
export class QdrantVectorIndex implements VectorIndex {
  private clientPromise: Promise<QdrantClient> | undefined;
  private collection = '';
  private dimensions = 0;

  constructor(private readonly options: QdrantVectorIndexOptions) {}

  /** The client (its package is ESM-only: a native dynamic import, kept by the CommonJS build). */
  private get client(): Promise<QdrantClient> {
    this.clientPromise ??= import('@qdrant/js-client-rest').then(
      ({ QdrantClient }) => new QdrantClient({ url: this.options.url, ...(this.options.apiKey ? { apiKey: this.options.apiKey } : {}) }),
    );
    return this.clientPromise;
  }

  async open(model: EmbeddingModelInfo): Promise<void> {
    const slug = model.id.toLowerCase().replace(/[^a-z0-9]+/g, '_');
    this.collection = `${this.options.collectionPrefix ?? 'rewind_memory'}_${slug}_${model.dimensions}`;
    this.dimensions = model.dimensions;
    const { exists } = await (await this.client).collectionExists(this.collection);
    if (exists) return;
    await (await this.client).createCollection(this.collection, { vectors: { size: model.dimensions, distance: 'Cosine' } });
    await (await this.client).createPayloadIndex(this.collection, { field_name: 'tenantId', field_schema: 'keyword', wait: true });
    await (await this.client).createPayloadIndex(this.collection, { field_name: 'sessionId', field_schema: 'keyword', wait: true });
    await (
      await this.client
    ).createPayloadIndex(this.collection, {
      field_name: 'tokens',
      field_schema: { type: 'text', tokenizer: 'whitespace', lowercase: true },
      wait: true,
    });
  }

  async upsert(items: readonly IndexedItem[]): Promise<void> {
    for (const { item, vector } of items) {
      if (vector.length !== this.dimensions) {
        throw new Error(`Item ${item.id} has a ${vector.length}-dimensional vector, but this index holds ${this.dimensions} dimensions.`);
      }
    }
    if (items.length === 0) return;
    await (
      await this.client
    ).upsert(this.collection, {
      wait: true,
      points: items.map(({ item, vector }) => ({
        id: pointId(item.id),
        vector: Array.from(vector),
        payload: { ...withoutContext(item), tokens: searchTokens(indexedText(item)).join(' ') } as unknown as Record<string, unknown>,
      })),
    });
  }

  async searchVector(vector: Float32Array, scope: MemoryScope, limit: number): Promise<ScoredItem[]> {
    if (limit <= 0) return [];
    const hits = await (await this.client).search(this.collection, { vector: Array.from(vector), limit, filter: scopeFilter(scope), with_payload: true });
    return hits.map((hit) => ({ item: toItem(hit.payload as unknown as Payload), score: hit.score }));
  }

  async searchText(query: string, scope: MemoryScope, limit: number): Promise<ScoredItem[]> {
    const terms = [...new Set(searchTokens(query, { dropStopWords: true }))];
    if (terms.length === 0 || limit <= 0) return [];
    const filter = { ...scopeFilter(scope), should: terms.map((term) => ({ key: 'tokens', match: { text: term } })) };
    const page = await (await this.client).scroll(this.collection, { filter, limit: Math.max(limit * 20, 200), with_payload: true, with_vector: false });
    const docs = page.points.map((p) => p.payload as unknown as Payload);
    return bm25(docs, terms)
      .slice(0, limit)
      .map(({ doc, score }) => ({ item: toItem(doc), score }));
  }

  async deleteScope(scope: MemoryScope): Promise<number> {
    const before = await this.count(scope);
    await (await this.client).delete(this.collection, { wait: true, filter: scopeFilter(scope) });
    return before;
  }

  async shredScope(scope: MemoryScope): Promise<number> {
    const client = await this.client;
    const prefix = `${this.options.collectionPrefix ?? 'rewind_memory'}_`;
    const { collections } = await client.getCollections();
    let removed = 0;
    for (const { name } of collections.filter((c) => c.name.startsWith(prefix))) {
      removed += (await client.count(name, { exact: true, filter: scopeFilter(scope) })).count;
      await client.delete(name, { wait: true, filter: scopeFilter(scope) });
    }
    return removed;
  }

  async count(scope?: MemoryScope): Promise<number> {
    const result = await (await this.client).count(this.collection, { exact: true, ...(scope ? { filter: scopeFilter(scope) } : {}) });
    return result.count;
  }

  /** Drops this index's collection (tests, and `rewind memory rebuild` into a fresh one). */
  async drop(): Promise<void> {
    await (await this.client).deleteCollection(this.collection);
  }

  async close(): Promise<void> {}
}

/** BM25 (k1 1.2, b 0.75) over the candidate documents only. */
function bm25(docs: Payload[], terms: string[]): { doc: Payload; score: number }[] {
  const tokenized = docs.map((d) => d.tokens.split(' '));
  const avgLength = tokenized.reduce((n, t) => n + t.length, 0) / Math.max(1, tokenized.length);
  const df = new Map(terms.map((term) => [term, tokenized.filter((t) => t.includes(term)).length]));
  return docs
    .map((doc, i) => {
      const tokens = tokenized[i]!;
      let score = 0;
      for (const term of terms) {
        const tf = tokens.filter((t) => t === term).length;
        if (tf === 0) continue;
        const idf = Math.log(1 + (docs.length - df.get(term)! + 0.5) / (df.get(term)! + 0.5));
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * tokens.length) / avgLength));
      }
      return { doc, score };
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score);
}
