import { describe, expect, it } from 'vitest';
import { axisVector, memoryItem, vectorIndexContract } from '../testing';
import { SqliteVectorIndex } from './sqlite-vector-index';
import { SqlitePolicyStore } from './sqlite-policy-store';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vectorIndexContract('SqliteVectorIndex (sqlite-vec binary + re-rank, FTS5)', async () => new SqliteVectorIndex({ filename: ':memory:' }), {
  twoStage: true,
  stemming: true,
  // Language routing: each model's tables in the same file, through one connection.
  sibling: (base) => (base as SqliteVectorIndex).sibling(),
});
vectorIndexContract(
  'SqliteVectorIndex (sqlite-vec exact float scan, FTS5)',
  async () => new SqliteVectorIndex({ filename: ':memory:', quantization: 'float' }),
  { twoStage: true, stemming: true },
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

  it("opening waits out another process holding the file's write lock past the busy timeout (5 s), and sets up every table at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-memory-'));
    const filename = join(dir, 'memory.db');
    // Another process (an indexing batch, a rebuild) holds the write lock for 6 s.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(${JSON.stringify(filename)}); db.pragma('journal_mode = WAL');
              db.exec('BEGIN IMMEDIATE'); console.log('locked'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6000);
              db.exec('COMMIT'); db.close();`,
      ],
      { cwd: __dirname, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on('data', (data: Buffer) => data.toString().includes('locked') && resolve());
        holder.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
      });
      const index = new SqliteVectorIndex({ filename });
      await index.open({ id: 'model-a', dimensions: 8 });
      await index.upsert([{ item: memoryItem({ id: 'a:0', text: 'hotel in Lisbon' }), vector: axisVector(8, 1) }]);
      expect((await index.searchText('Lisbon', { tenantId: 't1' }, 1))[0]!.item.id).toBe('a:0');
      await index.close();
    } finally {
      holder.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('keyword search stems words ("painted" finds "paintings"), and weighs a turn\'s own words above its previous turn\'s', async () => {
    const index = new SqliteVectorIndex({ filename: ':memory:' });
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

  it('a file made before stemming keeps its plain words and its one text column, and still finds its items', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rewind-memory-'));
    const filename = join(dir, 'memory.db');
    try {
      const old = new SqliteVectorIndex({ filename });
      await old.open({ id: 'model-a', dimensions: 8 });
      // What an older version made: one text column, no Porter stemming, no versioned migrations.
      old.db.exec(`DROP TABLE schema_versions; DROP TABLE memory_model_a_8_fts_vocab; DROP TABLE memory_model_a_8_fts;
        CREATE VIRTUAL TABLE memory_model_a_8_fts USING fts5(tokens, scope, tokenize = 'unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE memory_model_a_8_fts_vocab USING fts5vocab(memory_model_a_8_fts, 'row');`);
      await old.close();
      const reopened = new SqliteVectorIndex({ filename });
      await reopened.open({ id: 'model-a', dimensions: 8 });
      await reopened.upsert([
        { item: memoryItem({ id: 'a:0', text: 'Congratulations', context: 'I sold two paintings at the fair' }), vector: axisVector(8, 1) },
      ]);
      expect((await reopened.searchText('paintings sold', { tenantId: 't1' }, 5)).map((h) => h.item.id)).toEqual(['a:0']);
      // Unstemmed: "painted" is another word there.
      expect(await reopened.searchText('painted', { tenantId: 't1' }, 5)).toEqual([]);
      await reopened.close();
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

  it('binary search with re-ranking finds the nearest item tenant-wide and in a session (the rest of random vectors are near-ties)', async () => {
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
      const session = `s${(q * 7) % 4}`;
      const inSession = (await binary.searchVector(query, { tenantId: 't1', sessionId: session }, 5)).map((h) => h.item.id);
      const exactInSession = (await exact.searchVector(query, { tenantId: 't1', sessionId: session }, 5)).map((h) => h.item.id);
      expect(inSession[0]).toBe(exactInSession[0]);
      expect(inSession.every((id) => items.find((i) => i.item.id === id)!.item.sessionId === session)).toBe(true);
    }
    expect(agree / 100).toBeGreaterThanOrEqual(0.2);
    await exact.close();
    await binary.close();
  });

  it('keyword search returns only the scope, ranked the same, whichever plan the scope size picks', async () => {
    const index = new SqliteVectorIndex({ filename: ':memory:' });
    await index.open({ id: 'm', dimensions: 8 });
    // Tenant t1: 400 items, 20 about the castle (a big scope next to the matches: ranked without the scope word).
    // Tenant t2: 10 items, 5 about the castle (a small scope: searched through the scope word).
    const items = [
      ...Array.from({ length: 400 }, (_, i) =>
        memoryItem({
          id: `a${i}:0`,
          sessionId: i < 200 ? 'big' : `s${i % 7}`,
          text: i % 20 === 0 ? `the castle ${'tower '.repeat(i % 3)}visit ${i}` : `lunch at noon ${i}`,
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) => memoryItem({ id: `b${i}:0`, tenantId: 't2', sessionId: 'other', text: i % 2 ? `castle ${i}` : `dinner ${i}` })),
    ];
    await index.upsert(items.map((item, i) => ({ item, vector: axisVector(8, i % 8) })));
    const ids = async (scope: { tenantId: string; sessionId?: string }) => (await index.searchText('castle tower', scope, 50)).map((h) => h.item.id);

    const tenantWide = await ids({ tenantId: 't1' });
    expect(tenantWide).toHaveLength(20);
    expect(tenantWide.every((id) => id.startsWith('a'))).toBe(true);
    // "tower" twice (i % 3 === 2) scores best in BM25.
    expect(['a20:0', 'a80:0', 'a140:0', 'a200:0', 'a260:0', 'a320:0', 'a380:0']).toContain(tenantWide[0]);
    expect((await ids({ tenantId: 't2' })).sort()).toEqual(['b1:0', 'b3:0', 'b5:0', 'b7:0', 'b9:0']);
    const session = await ids({ tenantId: 't1', sessionId: 'big' });
    expect(session.sort()).toEqual(['a0:0', 'a100:0', 'a120:0', 'a140:0', 'a160:0', 'a180:0', 'a20:0', 'a40:0', 'a60:0', 'a80:0']);
    await index.close();
  });

  it('keyword search leaves out words common to much of the index: the rarest stands in, unless it is in a fifth of everything', async () => {
    const index = new SqliteVectorIndex({ filename: ':memory:' });
    await index.open({ id: 'm', dimensions: 8 });
    // 5 000 items: "lunch" in 90 %, "castle" in 24 %, "dragon" in 5 (the ceiling is 1 000 documents).
    const items = Array.from({ length: 5000 }, (_, i) =>
      memoryItem({ id: `e${i}:0`, text: [i % 10 ? 'lunch' : 'dinner', i % 25 < 6 ? 'castle' : 'garden', i % 1000 === 7 ? 'dragon' : 'noon'].join(' ') }),
    );
    await index.upsert(items.map((item, i) => ({ item, vector: axisVector(8, i % 8) })));
    const texts = async (query: string) => (await index.searchText(query, { tenantId: 't1' }, 50)).map((h) => h.item.text);

    expect(await texts('lunch')).toEqual([]);
    expect(await texts('lunch castle')).toHaveLength(50);
    expect((await texts('lunch castle')).every((t) => t.includes('castle'))).toBe(true);
    expect(await texts('castle dragon lunch')).toEqual(Array(5).fill('lunch garden dragon'));
    await index.close();
  });
});
