import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASE_ADMIN_URL } from '../../../../test/support/postgres';
import { SqliteEventStore } from '../sqlite';
import { InMemoryCheckpointStore, type CheckpointStore } from './checkpoint-store';
import { PostgresCheckpointStore } from './postgres-checkpoint-store';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'rewind-checkpoints-')), 'rewind.db');

// One throw-away schema on the test server for the PostgreSQL implementation (dropped after).
const pgSchema = `rewind_cp_${randomBytes(4).toString('hex')}`;
const pgPool = new Pool({ connectionString: TEST_DATABASE_ADMIN_URL, max: 2 });
afterAll(async () => {
  await pgPool.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
  await pgPool.end();
});

const implementations: [string, (now: () => number) => CheckpointStore][] = [
  ['InMemoryCheckpointStore', (now) => new InMemoryCheckpointStore(now)],
  ['SqliteCheckpointStore', (now) => new SqliteCheckpointStore(freshFile(), now)],
  ['PostgresCheckpointStore', (now) => new PostgresCheckpointStore(pgPool, now, pgSchema)],
];

for (const [name, create] of implementations) {
  describe(`${name} honours the checkpoint store contract`, () => {
    let clock = 1_000_000;
    let store: CheckpointStore;
    beforeEach(() => {
      clock = 1_000_000;
      store = create(() => clock);
    });
    afterEach(() => store.close());

    it('starts at 0 and only moves forward', async () => {
      expect(await store.load('relay:a')).toBe(0);
      await store.save('relay:a', 10);
      await store.save('relay:a', 7); // a late, overlapping publisher must not move it back
      expect(await store.load('relay:a')).toBe(10);
      await store.save('relay:a', 12);
      expect(await store.load('relay:a')).toBe(12);
      expect(await store.load('relay:b')).toBe(0);
    });

    it('keeps any name apart, quotes and backslashes included', async () => {
      const names = ["relay:it's", 'relay:back\\slash', "relay:'); DROP TABLE x; --", 'relay:ünï'];
      for (const [i, n] of names.entries()) await store.save(n, 100 + i);
      for (const [i, n] of names.entries()) expect(await store.load(n)).toBe(100 + i);
    });

    it('gives the lease to one owner until it expires or is released', async () => {
      expect(await store.acquire('relay:a', 'w1', 1_000)).toBe(true);
      expect(await store.acquire('relay:a', 'w2', 1_000)).toBe(false);
      expect(await store.acquire('relay:a', 'w1', 1_000)).toBe(true); // renewal
      clock += 999;
      expect(await store.acquire('relay:a', 'w2', 1_000)).toBe(false);
      clock += 2;
      expect(await store.acquire('relay:a', 'w2', 1_000)).toBe(true); // w1 expired
      await store.release('relay:a', 'w1'); // not the owner: no effect
      expect(await store.acquire('relay:a', 'w1', 1_000)).toBe(false);
      await store.release('relay:a', 'w2');
      expect(await store.acquire('relay:a', 'w1', 1_000)).toBe(true);
    });

    it('keeps the checkpoint when the lease changes hands', async () => {
      await store.acquire('relay:a', 'w1', 1_000);
      await store.save('relay:a', 42);
      await store.release('relay:a', 'w1');
      await store.acquire('relay:a', 'w2', 1_000);
      expect(await store.load('relay:a')).toBe(42);
    });
  });
}

describe('SqliteCheckpointStore on the event store file', () => {
  it('shares the file with SqliteEventStore and keeps checkpoints across reopening', async () => {
    const file = freshFile();
    const events = new SqliteEventStore({ filename: file });
    const first = new SqliteCheckpointStore(file);
    await first.save('relay:rewind.events', 5);
    await first.close();
    const second = new SqliteCheckpointStore(file);
    expect(await second.load('relay:rewind.events')).toBe(5);
    expect(second.db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = events.db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(['events', 'relay_checkpoints']));
    await second.close();
    await events.close();
  });
});
