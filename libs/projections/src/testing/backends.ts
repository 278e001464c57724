import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '@rewind/event-store';
import { maskConnectionString, PostgresEventStore } from '@rewind/event-store/postgres';
import { createTestDatabase, dropTestDatabase, TEST_DATABASE_ADMIN_URL, testDatabaseUrl, withAdminClient } from '@rewind/event-store/testing/postgres';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { ReadModelDatabase, type ReadModelConfig } from '../read-model-database';

/**
 * Real databases for the projection suites: a temporary SQLite file, or a fresh PostgreSQL
 * database (`rewind_proj_<random>`, created from REWIND_TEST_DATABASE_URL and dropped after).
 */

export interface Fixture {
  store: EventStore;
  db: ReadModelDatabase;
  config: ReadModelConfig;
  /** Opens another event store on the same data (another "process"). */
  openStore(): Promise<EventStore>;
  /**
   * The last committed global position. On PostgreSQL, `lastPosition()` may lag behind it
   * while any transaction in the cluster is older (the no-holes rule); tests that must see
   * their own writes catch up to this.
   */
  head(): Promise<number>;
  /** Waits until everything committed is readable through the log (`lastPosition() === head()`); returns that position. */
  settle(): Promise<number>;
  /** Environment for the CLI to reach the same data. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A fresh store and read models. */
  open(): Promise<Fixture>;
  /** Releases what the backend created (the PostgreSQL database). */
  dispose(): Promise<void>;
}

export function sqliteBackend(): Backend {
  const dirs: string[] = [];
  return {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'rewind-proj-'));
      dirs.push(dir);
      const filename = join(dir, 'rewind.db');
      const store = new SqliteEventStore({ filename });
      const config: ReadModelConfig = { type: 'sqlite', filename };
      const db = await ReadModelDatabase.open(config);
      const opened: EventStore[] = [store];
      return {
        store,
        db,
        config,
        env: { REWIND_STORE: 'sqlite', REWIND_DATA_DIR: dir },
        head: () => store.lastPosition(),
        settle: () => store.lastPosition(),
        async openStore() {
          const other = new SqliteEventStore({ filename });
          opened.push(other);
          return other;
        },
        async close() {
          await db.close();
          for (const s of opened) await s.close();
        },
      };
    },
    async dispose() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether the PostgreSQL test server answers (suites skip without it, except in CI where they fail). */
export async function postgresReachable(): Promise<boolean> {
  try {
    await withAdminClient(async (client) => client.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}

export { createTestDatabase };

/** One fresh database per backend; each `open()` gets its own schemas in it. */
export function postgresBackend(): Backend {
  const database = `rewind_proj_${randomBytes(6).toString('hex')}`;
  let created: Promise<string> | null = null;
  let counter = 0;
  const ensure = () => (created ??= withAdminClient((c) => c.query(`CREATE DATABASE ${database}`)).then(() => testDatabaseUrl(database)));
  return {
    name: 'postgres',
    async open() {
      const url = await ensure();
      const n = ++counter;
      const storeSchema = `es_${n}`;
      const readSchema = `rm_${n}`;
      const store = await PostgresEventStore.open({ connectionString: url, schema: storeSchema, visibilityWaitMs: 20 });
      const config: ReadModelConfig = { type: 'postgres', url, schema: readSchema };
      const db = await ReadModelDatabase.open(config);
      const opened: EventStore[] = [store];
      return {
        store,
        db,
        config,
        env: { REWIND_STORE: 'postgres', DATABASE_URL: url, REWIND_PG_SCHEMA: storeSchema, REWIND_READ_SCHEMA: readSchema },
        async head() {
          const result = await store.pool.query<{ p: string | null }>(`SELECT max(global_position) AS p FROM "${storeSchema}".events`);
          return Number(result.rows[0]?.p ?? 0);
        },
        async settle() {
          const deadline = Date.now() + 60_000;
          for (;;) {
            const result = await store.pool.query<{ p: string | null }>(`SELECT max(global_position) AS p FROM "${storeSchema}".events`);
            const head = Number(result.rows[0]?.p ?? 0);
            if ((await store.lastPosition()) >= head) return head;
            if (Date.now() > deadline)
              throw new Error(
                `Committed events up to ${head} did not become readable within 60 s: a long transaction elsewhere in the cluster holds them back.`,
              );
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        },
        async openStore() {
          const other = await PostgresEventStore.open({ connectionString: url, schema: storeSchema, visibilityWaitMs: 20 });
          opened.push(other);
          return other;
        },
        async close() {
          await db.close();
          for (const s of opened) await s.close();
        },
      };
    },
    async dispose() {
      if (created) {
        await created.catch(() => undefined);
        await dropTestDatabase(database);
      }
    },
  };
}

/** Synchronous (a suite decides what to declare before any test runs): asks a child process to connect. */
export function postgresReachableSync(): boolean {
  const script = `const { Client } = require('pg'); const c = new Client({ connectionString: process.env.URL, connectionTimeoutMillis: 3000 });
    c.connect().then(() => c.end()).then(() => process.exit(0), () => process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, URL: TEST_DATABASE_ADMIN_URL }, timeout: 10_000, cwd: process.cwd() });
  return result.status === 0;
}

/**
 * The backends a suite runs on: SQLite always; PostgreSQL when reachable, and always in CI
 * (`CI` set), where an unreachable server fails the suite instead of skipping it.
 */
export function backendsUnderTest(): { backend: Backend; skip: string | null; on: string }[] {
  const reachable = postgresReachableSync();
  const skip =
    reachable || process.env.CI
      ? null
      : `PostgreSQL is not reachable at ${maskConnectionString(TEST_DATABASE_ADMIN_URL)}: skipping its suite (set REWIND_TEST_DATABASE_URL, or CI to make this a failure)`;
  if (skip) console.warn(skip);
  const sqlite = sqliteBackend();
  const postgres = postgresBackend();
  // `on` names the backend in suite titles, with the reason when the suite is skipped.
  return [
    { backend: sqlite, skip: null, on: sqlite.name },
    { backend: postgres, skip, on: skip ? `${postgres.name} [skipped: ${skip}]` : postgres.name },
  ];
}
