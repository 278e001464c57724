import { describe, expect, it } from 'vitest';
import { axisVector, memoryItem, vectorIndexContract } from '../testing';
import { SqliteVectorIndex } from './sqlite-vector-index';
import { SqlitePolicyStore } from './sqlite-policy-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vectorIndexContract('SqliteVectorIndex (sqlite-vec binary + re-rank, FTS5)', async () => new SqliteVectorIndex({ filename: ':memory:' }));
vectorIndexContract(
  'SqliteVectorIndex (sqlite-vec exact float scan, FTS5)',
  async () => new SqliteVectorIndex({ filename: ':memory:', quantization: 'float' }),
);

describe('SqliteVectorIndex on a file', () => {
  it('keeps items across reopening, and a different model gets a fresh index beside the old one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-memory-'));
    const filename = join(dir, 'memory.db');
    try {
      const first = new SqliteVectorIndex({ filename });
      await first.open({ id: 'model-a', dimensions: 8 });
      await first.upsert([{ item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }), vector: axisVector(8, 1) }]);
      await first.close();
      const again = new SqliteVectorIndex({ filename });
      await again.open({ id: 'model-a', dimensions: 8 });
      expect((await again.searchVector(axisVector(8, 1), { tenantId: 't1' }, 1))[0]!.item.text).toBe('hotel in Lisbon');
      await again.open({ id: 'model-b', dimensions: 12 });
      expect(await again.count()).toBe(0);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores memory policies per tenant and per session', async () => {
    const store = new SqlitePolicyStore(':memory:');
    expect(await store.get('t1', 's1')).toBeNull();
    await store.set('t1', undefined, 'none');
    await store.set('t1', 's1', 'persistent');
    expect(await store.get('t1')).toBe('none');
    expect(await store.get('t1', 's1')).toBe('persistent');
    expect(await store.get('t2')).toBeNull();
    store.close();
  });

  it('binary search with re-ranking finds the nearest item tenant-wide (the rest of random vectors are near-ties), and a session is searched exactly', async () => {
    const D = 384;
    const exact = new SqliteVectorIndex({ filename: ':memory:', quantization: 'float' });
    const binary = new SqliteVectorIndex({ filename: ':memory:' });
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const unit = (v: Float32Array) => {
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const items = Array.from({ length: 2000 }, (_, i) => ({
      item: memoryItem({ id: `e${i}:0`, text: `item ${i}`, sessionId: `s${i % 4}` }),
      vector: unit(Float32Array.from({ length: D }, random)),
    }));
    for (const index of [exact, binary]) {
      await index.open({ id: 'm', dimensions: D });
      await index.upsert(items);
    }
    let agree = 0;
    for (let q = 0; q < 20; q++) {
      // A query close to one item (as a paraphrase is to its sentence): that item and its nearest neighbours.
      const query = unit(items[q * 7]!.vector.map((x) => x + (0.5 * random()) / Math.sqrt(D)));
      const a = (await exact.searchVector(query, { tenantId: 't1' }, 5)).map((h) => h.item.id);
      const b = (await binary.searchVector(query, { tenantId: 't1' }, 5)).map((h) => h.item.id);
      expect(b[0]).toBe(a[0]);
      agree += a.filter((id) => b.includes(id)).length;
      const inSession = (await binary.searchVector(query, { tenantId: 't1', sessionId: 's1' }, 5)).map((h) => h.item.id);
      const exactInSession = (await exact.searchVector(query, { tenantId: 't1', sessionId: 's1' }, 5)).map((h) => h.item.id);
      expect(inSession).toEqual(exactInSession);
    }
    expect(agree / 100).toBeGreaterThanOrEqual(0.2);
    await exact.close();
    await binary.close();
  });
});
