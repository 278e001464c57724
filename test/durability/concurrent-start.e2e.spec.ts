import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from '../support/http-client';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { kill9, startServerProcess, type ServerProcess } from '../support/server-process';

const PROCESSES = 3;

// Runs the built API (`npm test` builds first). Issue 38: of three processes started at once on a
// fresh database, two exited with 'duplicate key value violates unique constraint
// "pg_type_typname_nsp_index"' (a store creating its table at open, racing the others).
describe('API processes started at once on a fresh PostgreSQL database', () => {
  let db: TestDatabase;
  const dataDirs: string[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('rewind_concurrent_start');
  });
  afterAll(async () => {
    await db?.drop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  // Three processes starting on 2 busy cores take longer than one: the start's deadline is generous.
  it('all start, each serves requests, and every store schema is migrated once', { timeout: 240_000 }, async () => {
    const adminKey = `start-${randomBytes(12).toString('hex')}`;
    const env = () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'rewind-concurrent-start-'));
      dataDirs.push(dataDir);
      return { REWIND_STORE: 'postgres', DATABASE_URL: db.url, REWIND_ADMIN_KEY: adminKey, REWIND_DATA_DIR: dataDir, REWIND_PG_POOL_SIZE: '4' };
    };
    const started = await Promise.allSettled(Array.from({ length: PROCESSES }, () => startServerProcess(env(), undefined, 120_000)));
    const servers = started.filter((r): r is PromiseFulfilledResult<ServerProcess> => r.status === 'fulfilled').map((r) => r.value);
    try {
      expect(started.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      for (const [i, server] of servers.entries()) {
        const http = httpClient(server.baseUrl, adminKey);
        expect((await http('POST', '/v1/sessions', { sessionId: `started-${i}` })).status).toBe(201);
        expect((await http('GET', `/v1/sessions/started-${(i + 1) % servers.length}`)).status).toBeLessThan(500);
      }
      for (const server of servers) expect(server.output()).not.toContain('duplicate key value');
    } finally {
      for (const server of servers) await kill9(server);
    }

    const pool = new Pool({ connectionString: db.url, max: 1 });
    try {
      const { rows } = await pool.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'rewind' AND tablename LIKE '%\\_migrations' ORDER BY tablename`,
      );
      const tables = rows.map((r) => r.tablename);
      expect(tables).toEqual(
        // (Stores that migrate at their first use, such as memory policies and signing secrets, may not be there yet.)
        expect.arrayContaining(['api_key_migrations', 'checkpoint_migrations', 'data_key_migrations', 'schema_migrations']),
      );
      for (const table of tables) {
        const versions = (await pool.query<{ version: number }>(`SELECT version FROM rewind.${table} ORDER BY version`)).rows.map((r) => r.version);
        // Each version once, from 1 up without a gap.
        expect(versions, table).toEqual(versions.map((_, i) => i + 1));
      }
    } finally {
      await pool.end();
    }
  });
});

/** Node processes that open the embedded file's every store at the same moment (the built @rewind/runtime), then close. */
async function openTogether(dataDir: string, processes: number): Promise<{ code: number | null; output: string }[]> {
  const at = Date.now() + 3000; // each waits for this moment, so that node's own start does not space them out
  const script = `
    const { openSqliteBackend } = require('@rewind/runtime');
    while (Date.now() < ${at});
    const backend = openSqliteBackend({ dataDir: process.env.DIR });
    backend.readModels().then(() => backend.close()).then(() => console.log('opened'), (e) => { console.error(e.message); process.exit(1); });`;
  return Promise.all(
    Array.from(
      { length: processes },
      () =>
        new Promise<{ code: number | null; output: string }>((resolve) => {
          const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
          let output = '';
          child.stdout.on('data', (d) => (output += d));
          child.stderr.on('data', (d) => (output += d));
          child.on('exit', (code) => resolve({ code, output }));
        }),
    ),
  );
}

describe('processes opening one embedded SQLite file at once', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const stores = { 'api-keys': 2, checkpoints: 1, 'data-keys': 1, events: 1, seals: 1, 'signing-secrets': 1 };
  const latest = Object.entries(stores).map(([store, version]) => ({ store, version }));
  const versions = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare<[], { store: string; version: number }>('SELECT store, version FROM schema_versions ORDER BY store').all();
    } finally {
      db.close();
    }
  };

  it('all open a fresh file, each store migrated once (one version per store in the file)', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-concurrent-sqlite-'));
    dirs.push(dataDir);
    const results = await openTogether(dataDir, 4);
    expect(results.filter((r) => r.code !== 0)).toEqual([]);
    expect(versions(join(dataDir, 'rewind.db'))).toEqual(latest);
  });

  it('all open a file the old open-time code made, adopting its tables and rows', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-concurrent-sqlite-old-'));
    dirs.push(dataDir);
    expect((await openTogether(dataDir, 1))[0]!.code).toBe(0);
    // What an older release left: the same tables, no schema_versions, a secret replaced before each secret kept its own grace.
    const file = join(dataDir, 'rewind.db');
    const db = new Database(file);
    db.exec('DROP TABLE schema_versions');
    db.prepare(
      `INSERT INTO kafka_signing_keys (key_id, tenant_id, name, secret, created_at, previous_secret, previous_valid_until) VALUES ('k1', 'acme', 'bot', 'new', ?, 'old', ?)`,
    ).run(new Date().toISOString(), new Date(Date.now() + 3_600_000).toISOString());
    db.prepare("INSERT INTO retention_policies (tenant_id, inactive_days) VALUES ('acme', 30)").run();
    db.close();

    const results = await openTogether(dataDir, 4);
    expect(results.filter((r) => r.code !== 0)).toEqual([]);
    expect(versions(file)).toEqual(latest);
    const after = new Database(file, { readonly: true });
    try {
      expect(after.prepare('SELECT key_id, secret FROM kafka_signing_previous_secrets').all()).toEqual([{ key_id: 'k1', secret: 'old' }]);
      expect(after.prepare('SELECT inactive_days FROM retention_policies').all()).toEqual([{ inactive_days: 30 }]);
    } finally {
      after.close();
    }
  });
});
