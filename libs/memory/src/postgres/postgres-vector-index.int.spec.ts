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

// The same contract as the SQLite index (sqlite-vec/sqlite-vector-index.int.spec.ts), two stages and stemming included.
vectorIndexContract(
  'PostgresVectorIndex (bit_count Hamming prefilter + re-rank, tsvector BM25)',
  async () => new PostgresVectorIndex({ pool, schema: `contract_${++schemas}` }),
  // Language routing: each model's items in the same tables (their space), through one pool.
  { twoStage: true, stemming: true, sibling: (base) => (base as PostgresVectorIndex).sibling() },
);

describe('PostgresVectorIndex', () => {
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

  it("a process's codes in memory follow what another process writes, replaces and shreds", async () => {
    const [writerPool, readerPool] = [new Pool({ connectionString: db.url, max: 2 }), new Pool({ connectionString: db.url, max: 2 })];
    const writer = new PostgresVectorIndex({ pool: writerPool, schema: 'followers' });
    const reader = new PostgresVectorIndex({ pool: readerPool, schema: 'followers' });
    try {
      await writer.open({ id: 'model-a', dimensions: 8 });
      await reader.open({ id: 'model-a', dimensions: 8 });
      const ids = async (sessionId?: string) =>
        (await reader.searchVector(axisVector(8, 1), sessionId ? { tenantId: 't1', sessionId } : { tenantId: 't1' }, 1)).map((h) => h.item.id);
      await writer.upsert([{ item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }), vector: axisVector(8, 1) }]);
      expect(await ids()).toEqual(['a:0']);
      expect(await ids('s1')).toEqual(['a:0']);
      // New: read incrementally.
      await writer.upsert([{ item: memoryItem({ id: 'b:0', text: 'hotel in Porto' }), vector: axisVector(8, 1, 2, 0.01) }]);
      await writer.upsert([{ item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }), vector: axisVector(8, 5) }]);
      // Replaced: a:0 now points elsewhere, so b:0 is the nearest.
      expect(await ids()).toEqual(['b:0']);
      expect(await ids('s1')).toEqual(['b:0']);
      // Shredded by the other process: gone from this one's search at once.
      await writer.shredScope({ tenantId: 't1', sessionId: 's1' });
      expect(await ids()).toEqual([]);
      await writer.admit([memoryItem({ id: 'c:0', text: 'castle' })]);
      await writer.attachVectors([{ item: memoryItem({ id: 'c:0', text: 'castle' }), vector: axisVector(8, 1) }]);
      expect(await ids()).toEqual(['c:0']);
    } finally {
      await Promise.all([writerPool.end(), readerPool.end()]);
    }
  });
});
