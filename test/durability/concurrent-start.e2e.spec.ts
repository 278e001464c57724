import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
