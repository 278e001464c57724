import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { axisVector, memoryItem, vectorIndexContract } from '../testing';
import { PostgresVectorIndex } from './postgres-vector-index';

// The real server, one database for the file; each test of the contract gets a schema of its own (an empty index).
let db: TestDatabase;
let pool: Pool;
let schemas = 0;

beforeAll(async () => {
  db = await createTestDatabase('rewind_memory_index');
  pool = new Pool({ connectionString: db.url, max: 4 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

vectorIndexContract('PostgresVectorIndex (bit_count Hamming prefilter + re-rank, tsvector BM25)', async () => {
  return new PostgresVectorIndex({ pool, schema: `contract_${++schemas}` });
});

describe('PostgresVectorIndex', () => {
  it('keyword search stems words ("painted" finds "paintings"), and weighs a turn\'s own words above its previous turn\'s', async () => {
    const index = new PostgresVectorIndex({ pool, schema: 'stemming' });
    await index.open({ id: 'model-a', dimensions: 8 });
    await index.upsert([
      { item: memoryItem({ id: 'own:0', text: 'I sold two paintings at the fair' }), vector: axisVector(8, 1) },
      { item: memoryItem({ id: 'led:0', text: 'Congratulations, that is great', context: 'I sold two paintings at the fair' }), vector: axisVector(8, 2) },
      { item: memoryItem({ id: 'other:0', text: 'The weather was fine' }), vector: axisVector(8, 3) },
    ]);
    const hits = await index.searchText('What has she painted?', { tenantId: 't1' }, 5);
    expect(hits.map((h) => h.item.id)).toEqual(['own:0', 'led:0']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    // The hit carries its vector: recall scores a keyword hit by its similarity too.
    expect(Array.from(hits[0]!.vector!)).toEqual(Array.from(axisVector(8, 1)));
    await index.close();
  });

  it('ranks a rare word above a common one (idf), as BM25 does', async () => {
    const index = new PostgresVectorIndex({ pool, schema: 'idf' });
    await index.open({ id: 'model-a', dimensions: 8 });
    const filler = Array.from({ length: 20 }, (_, i) => ({
      item: memoryItem({ id: `f${i}:0`, text: `a walk in the park number ${i}` }),
      vector: axisVector(8, 2),
    }));
    await index.upsert([
      ...filler,
      { item: memoryItem({ id: 'rare:0', text: 'the zeppelin landed' }), vector: axisVector(8, 1) },
      { item: memoryItem({ id: 'common:0', text: 'the park was green, the park was wide' }), vector: axisVector(8, 1) },
    ]);
    const hits = await index.searchText('zeppelin park', { tenantId: 't1' }, 3);
    expect(hits[0]!.item.id).toBe('rare:0');
    await index.close();
  });

  it('two stages: admitted items are found by keywords at once and by vector once attached; a vector never brings back a shredded item', async () => {
    const index = new PostgresVectorIndex({ pool, schema: 'stages' });
    await index.open({ id: 'model-a', dimensions: 8 });
    const a = memoryItem({ id: 'a:0', text: 'hotel in Lisbon', context: 'where did you stay?', globalPosition: 5 });
    const b = memoryItem({ id: 'b:0', text: 'hotel in Porto', sessionId: 's2', globalPosition: 7 });
    expect(await index.admit([a, b])).toBe(2);
    expect(await index.admit([a])).toBe(0);
    expect(await index.pendingVectors()).toEqual({ items: 2, oldestPosition: 5 });
    expect((await index.searchText('hotel', { tenantId: 't1' }, 5)).map((h) => h.item.id).sort()).toEqual(['a:0', 'b:0']);
    expect(await index.searchVector(axisVector(8, 1), { tenantId: 't1' }, 5)).toEqual([]);
    expect(await index.pendingItems(10)).toEqual([a, b]);
    await index.shredScope({ tenantId: 't1', sessionId: 's2' });
    expect(
      await index.attachVectors([
        { item: a, vector: axisVector(8, 1) },
        { item: b, vector: axisVector(8, 1) },
      ]),
    ).toBe(1);
    expect(await index.attachVectors([{ item: a, vector: axisVector(8, 1) }])).toBe(0);
    expect((await index.searchVector(axisVector(8, 1), { tenantId: 't1' }, 5)).map((h) => h.item.id)).toEqual(['a:0']);
    expect(await index.pendingVectors()).toEqual({ items: 0, oldestPosition: null });
    await index.close();
  });

  it('keeps models apart; a shred removes every model’s items; any number of processes may open it at once on a fresh schema', async () => {
    const pools = Array.from({ length: 3 }, () => new Pool({ connectionString: db.url, max: 2 }));
    try {
      const indexes = pools.map((p) => new PostgresVectorIndex({ pool: p, schema: 'many_openers' }));
      await Promise.all(indexes.map((index, i) => index.open({ id: i === 2 ? 'model-b' : 'model-a', dimensions: i === 2 ? 12 : 8 })));
      await indexes[0]!.upsert([{ item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }), vector: axisVector(8, 1) }]);
      await indexes[2]!.upsert([{ item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }), vector: axisVector(12, 1) }]);
      // Another process sees what the first wrote; the other model's items are its own.
      expect((await indexes[1]!.searchVector(axisVector(8, 1), { tenantId: 't1' }, 1))[0]!.item.id).toBe('a:0');
      expect(await indexes[1]!.count()).toBe(1);
      expect(await indexes[1]!.shredScope({ tenantId: 't1' })).toBe(2);
      expect(await indexes[2]!.count()).toBe(0);
      await Promise.all(indexes.map((index) => index.close()));
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });
});
