import * as sqliteVec from 'sqlite-vec';
import { openSqliteFile } from '@rewind/event-store/sqlite';
import { describe, expect, it } from 'vitest';
import { axisVector, memoryItem, useTempIndexFile } from '../testing';
import { SqliteVectorIndex } from './sqlite-vector-index';

/** Vectors whose sign bits differ: the binary scan alone can tell them apart. */
function signVector(dimensions: number, pattern: number): Float32Array {
  return Float32Array.from({ length: dimensions }, (_, i) => (((pattern >> i % 16) & 1) === 1 ? 1 : -1) / Math.sqrt(dimensions));
}

describe('SqliteVectorIndex: 1-bit codes held in memory follow the file', () => {
  const file = useTempIndexFile();

  const model = { id: 'm', dimensions: 64 };
  const item = (n: number, sessionId = 's1') => ({ item: memoryItem({ id: `e${n}:0`, text: `note ${n}`, sessionId }), vector: signVector(64, n) });
  const ids = async (index: SqliteVectorIndex, pattern: number, limit = 1) =>
    (await index.searchVector(signVector(64, pattern), { tenantId: 't1' }, limit)).map((h) => h.item.id);

  it("sees another connection's inserts, deletes and a reused row id (the indexer writes in a worker thread, recall searches on the event loop)", async () => {
    const writer = new SqliteVectorIndex({ filename: file.filename });
    const reader = new SqliteVectorIndex({ filename: file.filename });
    await writer.open(model);
    await reader.open(model);
    // 40 items whose patterns use the low byte only; the candidates (4 per wanted hit) are a few of them.
    await writer.upsert(Array.from({ length: 40 }, (_, n) => item(n + 1)));
    expect(await ids(reader, 3)).toEqual(['e3:0']);

    // Appended after the reader loaded its codes: read incrementally.
    await writer.upsert([item(41), item(0x00ff, 's2')]);
    expect(await ids(reader, 41)).toEqual(['e41:0']);
    expect(await ids(reader, 0x00ff)).toEqual(['e255:0']);

    // The newest row deleted, then a new item takes its row id: the reader must not keep the old code
    // (with it, the new item, far from everything else, would not even be a candidate).
    await writer.deleteScope({ tenantId: 't1', sessionId: 's2' });
    expect(await ids(reader, 0x00ff, 10)).not.toContain('e255:0');
    await writer.upsert([item(0xff00, 's3')]);
    expect(await ids(reader, 0xff00)).toEqual(['e65280:0']);
    // Every candidate the reader's codes give is re-ranked on the row it names: nothing deleted comes back.
    expect(await reader.count()).toBe(42);
    expect(await ids(reader, 0x00ff, 50)).toHaveLength(42);
    expect(await ids(reader, 0x00ff, 50)).not.toContain('e255:0');

    // A shred by a third connection (the CLI) reaches the reader too.
    const cli = new SqliteVectorIndex({ filename: file.filename });
    await cli.shredScope({ tenantId: 't1', sessionId: 's1' });
    await cli.close();
    expect(await ids(reader, 1, 10)).toEqual(['e65280:0']);
    await writer.close();
    await reader.close();
  });

  it("sees its own connection's writes (they do not change SQLite's data_version)", async () => {
    const index = new SqliteVectorIndex({ filename: file.filename });
    await index.open(model);
    await index.upsert([item(1)]);
    expect(await ids(index, 1)).toEqual(['e1:0']);
    await index.upsert([item(2)]);
    expect(await ids(index, 2)).toEqual(['e2:0']);
    await index.deleteScope({ tenantId: 't1' });
    expect(await ids(index, 2)).toEqual([]);
    await index.close();
  });

  it('a session is scanned through its own codes and returns only its items; up to 4 × the hits wanted, exactly', async () => {
    const index = new SqliteVectorIndex({ filename: file.filename });
    const exact = new SqliteVectorIndex({ filename: ':memory:', quantization: 'float' });
    const items = Array.from({ length: 60 }, (_, n) => item(n, n % 2 ? 'odd' : 'even'));
    for (const i of [index, exact]) {
      await i.open(model);
      await i.upsert(items);
    }
    const hits = await index.searchVector(signVector(64, 7), { tenantId: 't1', sessionId: 'even' }, 5);
    expect(hits).toHaveLength(5);
    expect(hits.every((h) => h.item.sessionId === 'even')).toBe(true);
    expect((await index.searchVector(signVector(64, 7), { tenantId: 't1', sessionId: 'odd' }, 1))[0]!.item.id).toBe('e7:0');
    // 30 items in a session, 10 wanted: every item is a candidate, so the answer is the exact one.
    for (const pattern of [3, 100, 4242]) {
      const query = signVector(64, pattern);
      const ids = async (i: SqliteVectorIndex) =>
        (await i.searchVector(query, { tenantId: 't1', sessionId: 'odd' }, 10)).map((h) => [h.item.id, h.score.toFixed(5)]);
      expect(await ids(index)).toEqual(await ids(exact));
    }
    await index.close();
    await exact.close();
  });

  it('converts an index file of format 1 (codes in a sqlite-vec vec0 table) when it is opened, once', async () => {
    const first = new SqliteVectorIndex({ filename: file.filename });
    await first.open(model);
    await first.upsert([item(1), item(2), item(3, 's2')]);
    await first.close();
    // Turn the file back into format 1: no codes table, the codes in vec0.
    const db = openSqliteFile(file.filename, 'NORMAL');
    sqliteVec.load(db);
    const p = 'memory_m_64';
    // A format-1 file predates the versioned runner too: no schema_versions.
    db.exec(`DROP TABLE schema_versions; DROP TRIGGER ${p}_items_deleted; DROP TABLE ${p}_deletions; DROP TABLE ${p}_codes;
             CREATE VIRTUAL TABLE ${p}_vec USING vec0(tenant_id TEXT PARTITION KEY, session_id TEXT, embedding bit[64]);
             INSERT INTO ${p}_vec (rowid, tenant_id, session_id, embedding) SELECT rowid, tenant_id, session_id, vec_quantize_binary(vector) FROM ${p}_items;`);
    db.close();

    const reopened = new SqliteVectorIndex({ filename: file.filename });
    await reopened.open(model);
    expect(await ids(reopened, 2)).toEqual(['e2:0']);
    expect(await ids(reopened, 3)).toEqual(['e3:0']);
    expect(reopened.db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = '${p}_vec'`).get()).toEqual({ n: 0 });
    await reopened.upsert([item(4)]);
    expect(await ids(reopened, 4)).toEqual(['e4:0']);
    await reopened.close();
  });

  it('a shred reaches the codes of a model not opened since format 1 (its vec0 table)', async () => {
    const index = new SqliteVectorIndex({ filename: file.filename });
    await index.open({ id: 'old', dimensions: 8 });
    await index.upsert([{ item: memoryItem({ id: 'a:0', text: 'old model note', sessionId: 'gone' }), vector: axisVector(8, 1) }]);
    const p = 'memory_old_8';
    index.db.exec(`DROP TRIGGER ${p}_items_deleted; DROP TABLE ${p}_deletions; DROP TABLE ${p}_codes;
                   CREATE VIRTUAL TABLE ${p}_vec USING vec0(tenant_id TEXT PARTITION KEY, session_id TEXT, embedding bit[8]);
                   INSERT INTO ${p}_vec (rowid, tenant_id, session_id, embedding) SELECT rowid, tenant_id, session_id, vec_quantize_binary(vector) FROM ${p}_items;`);
    await index.open(model);
    expect(await index.shredScope({ tenantId: 't1', sessionId: 'gone' })).toBe(1);
    expect(index.db.prepare(`SELECT count(*) AS n FROM ${p}_vec`).get()).toEqual({ n: 0 });
    await index.close();
  });
});
