import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import { PostgresCheckpointStore, PostgresEventStore } from '@rewind/event-store/postgres';
import { SqliteCheckpointStore, SqliteEventStore } from '@rewind/event-store/sqlite';
import type { CheckpointStore } from '@rewind/event-store/subscriptions';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { EngineSessionPaths } from '../engine-session-paths';
import type { MemoryIndexerStatus } from '../memory-indexer';
import { DEFAULT_LOCAL_MODEL, defaultModelCacheDir } from '../onnx';
import { memoryConfigFromEnv } from './memory-config';
import { MemoryRuntime } from './memory-runtime';

/** Polls the indexer's status until `done` holds (bounded: fails with the last status seen). */
async function until(runtime: MemoryRuntime, done: (s: MemoryIndexerStatus) => boolean, what: string): Promise<MemoryIndexerStatus> {
  let last: MemoryIndexerStatus | undefined;
  for (let i = 0; i < 600; i++) {
    last = await runtime.indexer.status();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not happen within 30 s; last status: ${JSON.stringify(last)}`);
}

interface Stores {
  store: EventStore;
  checkpoints: CheckpointStore;
  close(): Promise<void>;
}

const STORES: Record<'sqlite' | 'postgres', (dir: string) => Promise<Stores>> = {
  sqlite: async (dir) => {
    const store = new SqliteEventStore({ filename: join(dir, 'rewind.db') });
    const checkpoints = new SqliteCheckpointStore(join(dir, 'rewind.db'));
    return { store, checkpoints, close: async () => (await checkpoints.close(), await store.close()) };
  },
  postgres: async () => {
    const db: TestDatabase = await createTestDatabase('rewind_memthread');
    const store = await PostgresEventStore.open({ connectionString: db.url });
    const checkpoints = new PostgresCheckpointStore(store.pool, undefined, store.schema);
    return { store, checkpoints, close: async () => (await checkpoints.close(), await store.close(), await db.drop()) };
  },
};

describe.each(['sqlite', 'postgres'] as const)('memory indexer in a worker thread (%s event store, real local model)', (kind) => {
  let dir: string;
  let stores: Stores;
  let sessions: SessionService;
  const runtimes: MemoryRuntime[] = [];
  const caller = { tenantId: 't1', actor: 'test' };
  const say = (content: string, role: 'user' | 'agent' = 'user') => sessions.execute(caller, 'trip', { type: 'RecordMessage', role, content });

  const runtime = (env: Record<string, string> = {}, dataDir = dir) => {
    const r = new MemoryRuntime({
      config: memoryConfigFromEnv(env, dataDir),
      paths: new EngineSessionPaths(sessions),
      store: stores.store,
      checkpoints: stores.checkpoints,
    });
    runtimes.push(r);
    return r;
  };

  /** The checkpoint kept in the index file (a local index's own, per model; the shared store is left alone). */
  const indexCheckpoint = async () => {
    const file = new Database(join(dir, 'rewind.memory.db'), { readonly: true });
    try {
      const rows = file
        .prepare<[], { name: string; position: number }>("SELECT name, position FROM memory_checkpoints WHERE name LIKE 'memory-indexer@%'")
        .all();
      expect(rows.map((row) => row.name)).toEqual(['memory-indexer@e5-small-v2-q+bge-small-zh-v15-q']);
      return rows[0]!.position;
    } finally {
      file.close();
    }
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rewind-memory-thread-'));
    stores = await STORES[kind](dir);
    sessions = new SessionService(new SessionRepository(stores.store, { snapshotEvery: 0 }));
    await sessions.startSession(caller, { sessionId: 'trip' });
  });

  afterEach(async () => {
    for (const r of runtimes.splice(0)) await r.close();
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('indexes in a thread, reports its lag, recalls, and resumes from its checkpoint after a restart', async () => {
    await say('hi');
    await say('I booked Hotel Avenida in Lisbon for May');
    await say('Noted: Hotel Avenida, Lisbon, 3 to 7 May.', 'agent');
    const first = runtime();
    expect(first.placement).toBe('thread');
    const before = await first.indexer.status();
    expect(before).toMatchObject({
      runsIn: 'thread',
      keywordsRunIn: 'thread',
      checkpoint: 0,
      lag: (await stores.store.readAll({ after: 0, limit: 1000 })).length,
    }); // lag counts events

    first.indexer.start();
    const indexed = await until(first, (s) => s.lag === 0 && s.items === 2 && s.pendingVectors === 0, 'indexing the first turns');
    expect(indexed).toMatchObject({ state: 'running', model: 'e5-small-v2-q', dimensions: 384, indexedItems: 2, lastError: null });
    expect(indexed.skippedEvents).toBeGreaterThan(0); // "hi" and SessionStarted
    // The writer thread runs at the lowest priority (Linux: nice 19 per thread); this process's other threads do not.
    const nice = readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
    expect(nice.filter((n) => n === 19).length).toBeGreaterThan(0);
    expect(nice).toContain(0);

    await first.open();
    const recalled = await first.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'Which hotel did we reserve in Portugal?', k: 2 });
    expect(recalled.hits[0]?.text).toContain('Hotel Avenida');

    // A clean stop: the checkpoint is where indexing got to, and the threads end.
    await first.close();
    runtimes.splice(runtimes.indexOf(first), 1);
    expect(await indexCheckpoint()).toBe(await stores.store.lastPosition());
    expect(await stores.checkpoints.load('memory-indexer')).toBe(0);

    await say('The museum tickets cost 12 euros each.', 'agent');
    const second = runtime();
    second.indexer.start();
    const resumed = await until(second, (s) => s.lag === 0 && s.items === 3 && s.pendingVectors === 0, 'indexing after the restart');
    // Only the new event was read: one item written by this process.
    expect(resumed.indexedItems).toBe(1);

    // At least once: the whole log again writes the same items, not new ones.
    await second.indexer.indexEvents(await stores.store.readAll({ after: 0, limit: 100 }));
    expect((await second.indexer.status()).items).toBe(3);
  });

  it('makes items searchable by keywords in a thread of its own: the event loop writes no row of the index, and the checkpoint follows the commit', async () => {
    await say('I booked Hotel Avenida in Lisbon for May');
    await say('Noted: Hotel Avenida, Lisbon, 3 to 7 May.', 'agent');
    const threaded = runtime();
    // The event loop's connection (recall, status, shreds) must not be the one admitting items.
    const admitHere = vi.spyOn(threaded.index, 'admit');
    await threaded.indexer.catchUp({ vectors: false });
    const admitted = await threaded.indexer.status();
    expect(admitted).toMatchObject({ stages: 2, keywordsRunIn: 'thread', lag: 0, items: 2, indexedItems: 2 });
    expect(admitHere).not.toHaveBeenCalled();
    // The thread committed before the checkpoint moved: a fresh connection sees the rows and the position.
    const file = new Database(join(dir, 'rewind.memory.db'), { readonly: true });
    try {
      const tables = file.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'memory\\_%\\_items' ESCAPE '\\'").all() as {
        name: string;
      }[];
      const rows = tables.reduce((sum, { name }) => sum + (file.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n, 0);
      expect(rows).toBe(2);
    } finally {
      file.close();
    }
    expect(await indexCheckpoint()).toBe(await stores.store.lastPosition());
    // Stage 2 then embeds what the keyword thread admitted.
    await threaded.indexer.catchUp();
    expect(await threaded.indexer.status()).toMatchObject({ pendingVectors: 0, items: 2 });
  });

  it('upgrade: an index file whose progress lived in the shared store starts from there once, re-embedding nothing and skipping nothing', async () => {
    await say('I booked Hotel Avenida in Lisbon for May');
    await say('Noted: Hotel Avenida, Lisbon, 3 to 7 May.', 'agent');
    const older = runtime();
    older.indexer.start();
    await until(older, (s) => s.lag === 0 && s.items === 2 && s.pendingVectors === 0, 'indexing the first turns');
    await older.close();
    runtimes.splice(runtimes.indexOf(older), 1);
    // As an older version left it: the items in the file, the progress only in the shared store.
    const indexFile = new Database(join(dir, 'rewind.memory.db'));
    indexFile.exec('DROP TABLE memory_checkpoints');
    indexFile.close();
    await stores.checkpoints.save('memory-indexer', await stores.store.lastPosition());

    await say('The museum tickets cost 12 euros each.', 'agent');
    const upgraded = runtime();
    upgraded.indexer.start();
    const done = await until(upgraded, (s) => s.lag === 0 && s.items === 3 && s.pendingVectors === 0, 'indexing after the upgrade');
    expect(done.indexedItems).toBe(1); // only the event after the adopted position
    expect(await indexCheckpoint()).toBe(await stores.store.lastPosition());
  });

  it('surfaces an error of the thread in the status, keeps retrying, and recovers when the cause is gone', async () => {
    await say('I booked Hotel Avenida in Lisbon for May');
    // The writer thread finds no model in its folder and cannot download one (nothing listens on port 9).
    const models = join(dir, 'models');
    const repository = process.env.REWIND_MAVEN_REPOSITORY;
    process.env.REWIND_MAVEN_REPOSITORY = 'http://127.0.0.1:9/maven2';
    try {
      const broken = runtime({ REWIND_MODEL_DIR: models });
      broken.indexer.start();
      const failing = await until(broken, (s) => s.lastError !== null, 'the error reaching the status');
      expect(failing).toMatchObject({ state: 'running', runsIn: 'thread' });
      expect(failing.lag).toBeGreaterThan(0);
      expect(failing.lastError).toMatch(/could not be downloaded from http:\/\/127\.0\.0\.1:9\/maven2/);

      // The model placed by hand (as the message suggests): the next retry indexes.
      cpSync(join(defaultModelCacheDir(), DEFAULT_LOCAL_MODEL), join(models, DEFAULT_LOCAL_MODEL), { recursive: true });
      const recovered = await until(broken, (s) => s.lag === 0 && s.lastError === null, 'recovery after the cause was removed');
      expect(recovered.indexedItems).toBe(1);
    } finally {
      if (repository === undefined) delete process.env.REWIND_MAVEN_REPOSITORY;
      else process.env.REWIND_MAVEN_REPOSITORY = repository;
    }
  });

  it('stops cleanly while a burst is being indexed: no hang, the checkpoint on a batch boundary, nothing lost on restart', async () => {
    for (let i = 0; i < 300; i++) await say(`Turn ${i}: we talked about the castle and the river in the afternoon.`);
    const busy = runtime({ REWIND_MEMORY_INDEXER_CPU_SHARE: '0.3' });
    busy.indexer.start();
    await until(busy, (s) => s.indexedItems > 0, 'a first batch');
    await busy.close();
    runtimes.splice(runtimes.indexOf(busy), 1);
    const stoppedAt = await indexCheckpoint();
    expect(stoppedAt).toBeGreaterThan(0);

    const again = runtime();
    again.indexer.start();
    const done = await until(again, (s) => s.lag === 0 && s.pendingVectors === 0, 'catching up after the restart');
    expect(done.items).toBe(300);
  });
});
