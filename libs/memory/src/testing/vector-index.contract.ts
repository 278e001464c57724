import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VectorIndex } from '../vector-index';
import { languageSpacesContract } from './language-spaces.contract';
import { axisVector, memoryItem } from './contract-items';

/** What an adapter has beyond the port's core, so that the contract checks it too. */
export interface VectorIndexFeatures {
  /** Two-stage indexing (admit, pendingItems, attachVectors, pendingVectors): SQLite and PostgreSQL. */
  twoStage?: boolean;
  /** Keyword search reduces words to their stems and weighs a turn's previous turn below its own words. */
  stemming?: boolean;
  /**
   * Another index on the same storage as `base` (the adapter's `sibling()`): the contract then runs
   * under language routing too (languageSpacesContract: per-model counts, clean-up of every model).
   */
  sibling?: (base: VectorIndex) => VectorIndex;
}

/**
 * The contract every VectorIndex adapter passes. `create` gives a fresh, empty index
 * (not yet opened); the suite opens it for a 16-dimensional test model.
 */
export function vectorIndexContract(name: string, create: () => Promise<VectorIndex>, features: VectorIndexFeatures = {}): void {
  describe(name, () => {
    const D = 16;
    let index: VectorIndex;

    beforeEach(async () => {
      index = await create();
      await index.open({ id: 'contract-test-model', dimensions: D });
    });
    afterEach(async () => {
      await index.close();
    });

    it('finds the nearest items by vector, best first, within the tenant', async () => {
      await index.upsert([
        { item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }), vector: axisVector(D, 1) },
        { item: memoryItem({ id: 'b:0', text: 'flight to Porto' }), vector: axisVector(D, 2) },
        { item: memoryItem({ id: 'c:0', text: 'hotel near Lisbon', version: 3 }), vector: axisVector(D, 1, 2, 0.5) },
        { item: memoryItem({ id: 'x:0', text: 'other tenant hotel', tenantId: 't2' }), vector: axisVector(D, 1) },
      ]);
      const hits = await index.searchVector(axisVector(D, 1), { tenantId: 't1' }, 2);
      expect(hits.map((h) => h.item.id)).toEqual(['a:0', 'c:0']);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(hits[0]!.item).toEqual(memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }));
    });

    it('never returns another tenant’s items, by vector or by text', async () => {
      await index.upsert([{ item: memoryItem({ id: 'x:0', text: 'secret hotel booking', tenantId: 't2' }), vector: axisVector(D, 1) }]);
      expect(await index.searchVector(axisVector(D, 1), { tenantId: 't1' }, 5)).toEqual([]);
      expect(await index.searchText('secret hotel', { tenantId: 't1' }, 5)).toEqual([]);
      expect((await index.searchText('secret hotel', { tenantId: 't2' }, 5)).map((h) => h.item.id)).toEqual(['x:0']);
    });

    it('scopes a search to one session', async () => {
      await index.upsert([
        { item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon', sessionId: 's1' }), vector: axisVector(D, 1) },
        { item: memoryItem({ id: 'b:0', text: 'hotel in Madrid', sessionId: 's2' }), vector: axisVector(D, 1, 3, 0.1) },
      ]);
      expect((await index.searchVector(axisVector(D, 1), { tenantId: 't1', sessionId: 's2' }, 5)).map((h) => h.item.id)).toEqual(['b:0']);
      expect((await index.searchText('hotel', { tenantId: 't1', sessionId: 's1' }, 5)).map((h) => h.item.id)).toEqual(['a:0']);
    });

    it('ranks text matches by how well they match (BM25), ignoring punctuation and case', async () => {
      await index.upsert([
        { item: memoryItem({ id: 'a:0', text: 'The price of the Avenida hotel is 120 euros per night.' }), vector: axisVector(D, 1) },
        { item: memoryItem({ id: 'b:0', text: 'We talked about the weather.' }), vector: axisVector(D, 2) },
        { item: memoryItem({ id: 'c:0', text: 'Avenida is on the main square.' }), vector: axisVector(D, 3) },
      ]);
      const hits = await index.searchText('AVENIDA price?', { tenantId: 't1' }, 5);
      expect(hits.map((h) => h.item.id)).toEqual(['a:0', 'c:0']);
      expect(await index.searchText('"; DROP TABLE x; -- OR', { tenantId: 't1' }, 5)).toEqual([]);
    });

    it('finds Chinese text by its words', async () => {
      await index.upsert([
        { item: memoryItem({ id: 'a:0', text: '我们在里斯本订了一家酒店' }), vector: axisVector(D, 1) },
        { item: memoryItem({ id: 'b:0', text: '明天的天气很好' }), vector: axisVector(D, 2) },
      ]);
      expect((await index.searchText('哪家酒店？', { tenantId: 't1' }, 5)).map((h) => h.item.id)).toEqual(['a:0']);
    });

    it('upserts are idempotent by item id: the same item twice is one item, a changed one replaces it', async () => {
      const item = memoryItem({ id: 'a:0', text: 'hotel in Lisbon' });
      await index.upsert([{ item, vector: axisVector(D, 1) }]);
      await index.upsert([{ item, vector: axisVector(D, 1) }]);
      expect(await index.count()).toBe(1);
      await index.upsert([{ item: { ...item, text: 'hostel in Lisbon' }, vector: axisVector(D, 4) }]);
      expect(await index.count({ tenantId: 't1' })).toBe(1);
      expect((await index.searchText('hostel', { tenantId: 't1' }, 5)).map((h) => h.item.text)).toEqual(['hostel in Lisbon']);
      expect(await index.searchText('hotel', { tenantId: 't1' }, 5)).toEqual([]);
      expect((await index.searchVector(axisVector(D, 4), { tenantId: 't1' }, 1))[0]!.item.text).toBe('hostel in Lisbon');
    });

    it('deletes a session’s items, or a tenant’s, and nothing else', async () => {
      await index.upsert([
        { item: memoryItem({ id: 'a:0', text: 'one', sessionId: 's1' }), vector: axisVector(D, 1) },
        { item: memoryItem({ id: 'b:0', text: 'two', sessionId: 's2' }), vector: axisVector(D, 2) },
        { item: memoryItem({ id: 'c:0', text: 'three', tenantId: 't2' }), vector: axisVector(D, 3) },
      ]);
      expect(await index.deleteScope({ tenantId: 't1', sessionId: 's1' })).toBe(1);
      expect(await index.count({ tenantId: 't1' })).toBe(1);
      expect(await index.searchText('one', { tenantId: 't1' }, 5)).toEqual([]);
      expect(await index.deleteScope({ tenantId: 't1' })).toBe(1);
      expect(await index.count()).toBe(1);
    });

    it('shreds a session or a tenant: its items are gone from vector and keyword search, the rest stays', async () => {
      await index.upsert([
        { item: memoryItem({ id: 'a:0', text: 'quixotic one' }), vector: axisVector(D, 1) },
        { item: memoryItem({ id: 'b:0', text: 'quixotic two', sessionId: 's2' }), vector: axisVector(D, 1, 2, 0.1) },
        { item: memoryItem({ id: 'c:0', text: 'quixotic three', tenantId: 't2' }), vector: axisVector(D, 1) },
      ]);
      expect(await index.shredScope({ tenantId: 't1', sessionId: 's1' })).toBe(1);
      const ids = (hits: { item: { id: string } }[]) => hits.map((h) => h.item.id);
      expect(ids(await index.searchVector(axisVector(D, 1), { tenantId: 't1' }, 5))).toEqual(['b:0']);
      expect(ids(await index.searchText('quixotic', { tenantId: 't1' }, 5))).toEqual(['b:0']);
      expect(await index.shredScope({ tenantId: 't1' })).toBe(1);
      expect(await index.count({ tenantId: 't1' })).toBe(0);
      expect(ids(await index.searchText('quixotic', { tenantId: 't2' }, 5))).toEqual(['c:0']);
      expect(await index.shredScope({ tenantId: 't1' })).toBe(0);
    });

    if (features.stemming) {
      it('keyword search stems words ("painted" finds "paintings"), weighs a turn\'s own words above its previous turn\'s, and returns hits with their vectors', async () => {
        await index.upsert([
          { item: memoryItem({ id: 'own:0', text: 'I sold two paintings at the fair' }), vector: axisVector(D, 1) },
          { item: memoryItem({ id: 'led:0', text: 'Congratulations, that is great', context: 'I sold two paintings at the fair' }), vector: axisVector(D, 2) },
          { item: memoryItem({ id: 'other:0', text: 'The weather was fine' }), vector: axisVector(D, 3) },
        ]);
        const hits = await index.searchText('What has she painted?', { tenantId: 't1' }, 5);
        expect(hits.map((h) => h.item.id)).toEqual(['own:0', 'led:0']);
        expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
        expect(Array.from(hits[0]!.vector!)).toEqual(Array.from(axisVector(D, 1)));
      });

      it('ranks an item holding a rare word of the question above one holding only a common one (idf), as BM25 does', async () => {
        const filler = Array.from({ length: 20 }, (_, i) => ({
          item: memoryItem({ id: `f${i}:0`, text: `a walk in the park number ${i}` }),
          vector: axisVector(D, 2),
        }));
        await index.upsert([
          ...filler,
          { item: memoryItem({ id: 'rare:0', text: 'the zeppelin landed' }), vector: axisVector(D, 1) },
          { item: memoryItem({ id: 'common:0', text: 'the park was green, the park was wide' }), vector: axisVector(D, 1) },
        ]);
        expect((await index.searchText('zeppelin park', { tenantId: 't1' }, 3))[0]!.item.id).toBe('rare:0');
      });
    }

    if (features.twoStage) {
      it('two stages: admitted items are found by keywords at once and by vector once attached; a vector never brings back a shredded item', async () => {
        const a = memoryItem({ id: 'a:0', text: 'hotel in Lisbon', context: 'where did you stay?', globalPosition: 5 });
        const b = memoryItem({ id: 'b:0', text: 'hotel in Porto', sessionId: 's2', globalPosition: 7 });
        expect(await index.admit!([a, b])).toBe(2);
        expect(await index.admit!([a])).toBe(0);
        expect(await index.pendingVectors!()).toEqual({ items: 2, oldestPosition: 5 });
        expect((await index.searchText('hotel', { tenantId: 't1' }, 5)).map((h) => h.item.id).sort()).toEqual(['a:0', 'b:0']);
        expect(await index.searchVector(axisVector(D, 1), { tenantId: 't1' }, 5)).toEqual([]);
        // Newest first (b was admitted after a), and a limit takes the newest.
        expect(await index.pendingItems!(10)).toEqual([b, a]);
        expect(await index.pendingItems!(1)).toEqual([b]);
        await index.shredScope({ tenantId: 't1', sessionId: 's2' });
        expect(
          await index.attachVectors!([
            { item: a, vector: axisVector(D, 1) },
            { item: b, vector: axisVector(D, 1) },
          ]),
        ).toBe(1);
        expect(await index.attachVectors!([{ item: a, vector: axisVector(D, 1) }])).toBe(0);
        expect((await index.searchVector(axisVector(D, 1), { tenantId: 't1' }, 5)).map((h) => h.item.id)).toEqual(['a:0']);
        expect(await index.pendingVectors!()).toEqual({ items: 0, oldestPosition: null });
        expect(await index.count()).toBe(1);
      });
    }

    it('refuses a vector of the wrong dimension', async () => {
      await expect(index.upsert([{ item: memoryItem({ id: 'a:0', text: 'x' }), vector: new Float32Array(D + 1) }])).rejects.toThrow(/dimension/);
      expect(await index.count()).toBe(0);
    });
  });
  if (features.sibling) languageSpacesContract(name, create, features.sibling, features.twoStage ?? false);
}
