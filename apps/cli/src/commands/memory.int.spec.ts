import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { PostgresCheckpointStore, PostgresEventStore } from '@rewind/event-store/postgres';
import { EngineSessionPaths } from '@rewind/memory';
import { MemoryRuntime, memoryConfigFromEnv } from '@rewind/memory/runtime';
import { Pool } from 'pg';
import { storeEnv } from '../../../../test/support/postgres';
import { SqliteVectorIndex } from '@rewind/memory/sqlite-vec';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { SqliteCheckpointStore } from '@rewind/event-store/sqlite';
import { runCli } from '../cli';

describe('rewind memory status | rebuild [--verify]', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'rewind-cli-memory-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function rewind(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      stdout: { write: (c: string) => (stdout += c) },
      stderr: { write: (c: string) => (stderr += c) },
      env: { REWIND_DATA_DIR: dataDir },
    });
    return { code, stdout, stderr };
  }

  async function writeTrip(): Promise<void> {
    const store = new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
    const caller = { tenantId: 'default', actor: 'test' };
    await sessions.startSession(caller, { sessionId: 'trip' });
    await sessions.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'hello' });
    await sessions.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'Find me a hotel in Lisbon' });
    await sessions.execute(caller, 'trip', { type: 'WriteMemory', key: 'hotel', value: 'Avenida' });
    await store.close();
  }

  it('rebuild builds the index from the log; status then shows no lag; --verify finds it matching', async () => {
    await writeTrip();
    const before = await rewind('memory', 'status');
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ index: 'sqlite', model: 'e5-small-v2-q', dimensions: 384, checkpoint: 0, lag: 4, items: 0 });

    const rebuilt = await rewind('memory', 'rebuild');
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ items: 2, checkpoint: 4 });
    expect(rebuilt.stderr).toMatch(/Indexed 2 items from 4 events/);
    expect(JSON.parse((await rewind('memory', 'status')).stdout)).toMatchObject({ checkpoint: 4, lag: 0, items: 2 });
    // The progress is in the rebuilt file itself, not in the shared table of rewind.db.
    const indexFile = new Database(join(dataDir, 'rewind.memory.db'), { readonly: true });
    expect(indexFile.prepare("SELECT name, position FROM memory_checkpoints WHERE name LIKE 'memory-indexer@%'").all()).toEqual([
      { name: 'memory-indexer@e5-small-v2-q+bge-small-zh-v15-q', position: 4 },
    ]);
    indexFile.close();
    const shared = new SqliteCheckpointStore(join(dataDir, 'rewind.db'));
    expect(await shared.load('memory-indexer')).toBe(0);
    await shared.close();

    const verified = await rewind('memory', 'rebuild', '--verify');
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toEqual({ live: 2, rebuilt: 2, missingFromLive: 0, notInLog: 0, notIndexedYet: 0 });
  });

  it('upgrade: a live index whose progress was in the shared table starts from there once', async () => {
    await writeTrip();
    expect((await rewind('memory', 'rebuild')).code).toBe(0);
    // As an older version left it: items in the file, the checkpoint (3) only in rewind.db.
    const indexFile = new Database(join(dataDir, 'rewind.memory.db'));
    indexFile.exec('DROP TABLE memory_checkpoints');
    indexFile.close();
    const shared = new SqliteCheckpointStore(join(dataDir, 'rewind.db'));
    await shared.save('memory-indexer', 3);
    await shared.close();
    expect(JSON.parse((await rewind('memory', 'status')).stdout)).toMatchObject({ checkpoint: 3, lag: 1, items: 2 });
  });

  it('--verify fails, read-only, when the live index lost an item', async () => {
    await writeTrip();
    const rebuilt = await rewind('memory', 'rebuild');
    expect(rebuilt.stderr).toMatch(/Indexed/);
    expect(rebuilt.code).toBe(0);
    const live = new SqliteVectorIndex({ filename: join(dataDir, 'rewind.memory.db') });
    await live.open({ id: 'e5-small-v2-q', dimensions: 384 });
    const [first] = await live.listItems();
    live.db.prepare('DELETE FROM memory_e5_small_v2_q_384_items WHERE id = ?').run(first!.id);
    await live.close();
    const verified = await rewind('memory', 'rebuild', '--verify');
    expect(verified.code).toBe(1);
    expect(JSON.parse(verified.stdout)).toMatchObject({ live: 1, rebuilt: 2, missingFromLive: 1 });
    expect(verified.stderr).toMatch(/does not match the event log/);
  });

  it('rebuild keeps each language with its model (the defaults route Chinese to bge-small-zh): status counts per model; --verify compares both models’ items', async () => {
    await writeTrip();
    const store = new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
    await sessions.execute({ tenantId: 'default', actor: 'test' }, 'trip', {
      type: 'RecordMessage',
      role: 'agent',
      content: '里斯本的阿维尼达酒店在自由大道上。',
    });
    await store.close();
    const rebuilt = await rewind('memory', 'rebuild');
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ items: 3, checkpoint: 5 });
    expect(JSON.parse((await rewind('memory', 'status')).stdout)).toMatchObject({
      lag: 0,
      items: 3,
      pendingVectors: 0,
      models: [
        { id: 'e5-small-v2-q', language: 'en', items: 2, pendingVectors: 0 },
        { id: 'bge-small-zh-v15-q', language: 'zh', items: 1, pendingVectors: 0 },
      ],
    });
    // The Chinese item is in the Chinese model's tables of the rebuilt file.
    const indexFile = new Database(join(dataDir, 'rewind.memory.db'), { readonly: true });
    expect(indexFile.prepare('SELECT text FROM memory_bge_small_zh_v15_q_512_items').all()).toEqual([{ text: '里斯本的阿维尼达酒店在自由大道上。' }]);
    indexFile.close();
    const verified = await rewind('memory', 'rebuild', '--verify');
    expect(JSON.parse(verified.stdout)).toEqual({ live: 3, rebuilt: 3, missingFromLive: 0, notInLog: 0, notIndexedYet: 0 });
  });
});

describe('rewind memory rebuild on the PostgreSQL index (REWIND_STORE=postgres, its default index)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rewind-cli-memory-pg-'));
    const target = await storeEnv('postgres');
    cleanup = target.cleanup;
    env = { ...target.env, REWIND_DATA_DIR: dataDir };
  });
  afterEach(async () => {
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function rewind(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, env });
    return { code, stdout, stderr };
  }

  it('--verify compares every model’s items of the shared index with the log; a full rebuild says how, naming every model’s rows and checkpoints', async () => {
    const store = await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 });
    const checkpointPool = new Pool({ connectionString: env.DATABASE_URL!, max: 2 });
    const checkpoints = new PostgresCheckpointStore(checkpointPool);
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
    const caller = { tenantId: 'default', actor: 'test' };
    await sessions.startSession(caller, { sessionId: 'trip' });
    await sessions.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'Find me a hotel in Lisbon' });
    await sessions.execute(caller, 'trip', { type: 'RecordMessage', role: 'agent', content: '里斯本的阿维尼达酒店在自由大道上。' });
    // The live index, as an API process's indexer writes it (language routing: each model's space in the shared tables).
    const live = new MemoryRuntime({
      config: memoryConfigFromEnv(env, dataDir),
      paths: new EngineSessionPaths(sessions),
      store,
      checkpoints,
      placement: 'process',
    });
    try {
      await live.indexer.catchUp();
      expect((await live.indexer.status()).models.map((m) => [m.id, m.items])).toEqual([
        ['e5-small-v2-q', 1],
        ['bge-small-zh-v15-q', 1],
      ]);
    } finally {
      await live.close();
    }
    const verified = await rewind('memory', 'rebuild', '--verify');
    expect(verified.stderr).toMatch(/matches the event log/);
    expect(JSON.parse(verified.stdout)).toEqual({ live: 2, rebuilt: 2, missingFromLive: 0, notInLog: 0, notIndexedYet: 0 });
    expect(verified.code).toBe(0);

    // The Chinese model's item lost from the shared index: --verify sees it, changing nothing.
    const pool = new Pool({ connectionString: env.DATABASE_URL!, max: 1 });
    try {
      expect((await pool.query(`DELETE FROM rewind.memory_items WHERE space LIKE 'bge-small-zh-v15-q@%'`)).rowCount).toBe(1);
      const failed = await rewind('memory', 'rebuild', '--verify');
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ live: 1, rebuilt: 2, missingFromLive: 1 });
      const full = await rewind('memory', 'rebuild');
      expect(full.code).not.toBe(0);
      expect(full.stderr).toContain(`DELETE FROM rewind.memory_items; DELETE FROM rewind.subscriber_checkpoints WHERE name LIKE 'postgres-memory-indexer@%'`);
      expect((await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM rewind.memory_items')).rows[0]!.n).toBe(1);
    } finally {
      await pool.end();
      await checkpointPool.end();
      await store.close();
    }
  });
});
