/**
 * Where a 20-turn session's bytes go (issue 40), column by column: the built API on a fresh
 * PostgreSQL database, default configuration, issue 26's conversation (ORDER_SUPPORT: a user
 * message, a tool call, its result, a memory write, an agent answer) sent one step per request
 * as W7 over HTTP does, then `pg_column_size` of each column of rewind.events and
 * rewind.snapshots per session, the row headers, the indexes' sizes, and one event's metadata.
 * Counts bytes, not time: the host's load does not change them.
 *
 * Usage: npm run build && node dist/test/bench/storage-columns.bench.js [sessions=10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as PostgresTesting from '@rewind/event-store/testing/postgres';
import { builtTestHelper } from './built-test-helper';
import { ORDER_SUPPORT, STEPS_PER_TURN, stepOfCommand } from './suite/conversation';
import { withClient } from './suite/databases';
import { httpSender } from './suite/http-senders';

const { createTestDatabase } = builtTestHelper<typeof PostgresTesting>('libs/event-store/dist/testing/postgres-test-database.js');

const SESSIONS = Number(process.argv[2] ?? 10);
const TURNS = 20;
const API_KEY = 'columns-bench-key-0123456789abcdef';

async function main(): Promise<void> {
  const database = await createTestDatabase('rewind_columns');
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-columns-'));
  const port = 3990 + Math.floor(Math.random() * 9);
  const api = spawn(process.execPath, [join(process.cwd(), 'apps/api/dist/main.js')], {
    env: {
      ...process.env,
      REWIND_STORE: 'postgres',
      DATABASE_URL: database.url,
      REWIND_DATA_DIR: dataDir,
      REWIND_ADMIN_KEY: API_KEY,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (i > 1200 || api.exitCode !== null) throw new Error('the API did not start');
      if (
        await fetch(`${baseUrl}/health/ready`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const send = httpSender({ baseUrl, apiKey: API_KEY }, 1);
    const ids = Array.from({ length: SESSIONS }, (_, i) => `cols-${i}`);
    for (const sessionId of ids) await send('POST', '/v1/sessions', { sessionId });
    for (let t = 0; t < TURNS; t++)
      for (let s = 0; s < STEPS_PER_TURN; s++)
        for (const sessionId of ids) {
          const res = await send('POST', `/v1/sessions/${sessionId}/steps`, { steps: [stepOfCommand(ORDER_SUPPORT.command(t, s))] });
          if (res.status !== 201) throw new Error(`step answered ${res.status}: ${res.text}`);
        }
    await withClient(database.url, async (client) => {
      const perSession = (bytes: unknown) => (Number(bytes) / SESSIONS).toFixed(0);
      for (const table of ['events', 'snapshots', 'snapshot_segments', 'streams', 'idempotency_keys']) {
        const columns = (
          await client.query<{ column_name: string }>(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'rewind' AND table_name = $1 ORDER BY ordinal_position",
            [table],
          )
        ).rows.map((r) => r.column_name);
        if (columns.length === 0) continue;
        const sums = columns.map((c) => `coalesce(sum(pg_column_size(${c})), 0) AS "${c}"`).join(', ');
        const { rows } = await client.query(`SELECT count(*) AS rows, coalesce(sum(pg_column_size(t.*)), 0) AS whole, ${sums} FROM rewind.${table} t`);
        const row = rows[0] as Record<string, string>;
        console.log(`rewind.${table}: ${row.rows} rows, ${perSession(row.whole)} B/session by row (header included)`);
        for (const c of columns) console.log(`  ${c.padEnd(18)} ${perSession(row[c]).padStart(7)} B/session`);
      }
      const { rows: indexes } = await client.query<{ name: string; bytes: string }>(
        "SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'rewind' AND c.relkind = 'i' ORDER BY 2 DESC LIMIT 12",
      );
      console.log('indexes (pages, whole database):');
      for (const index of indexes) console.log(`  ${index.name.padEnd(36)} ${index.bytes}`);
      const { rows: sample } = await client.query(
        'SELECT stream_version, type_code, data::text AS data, metadata::text AS metadata, pg_column_size(data) AS d, pg_column_size(metadata) AS m FROM rewind.events ORDER BY global_position LIMIT 6 OFFSET 20',
      );
      console.log('sample events:');
      for (const e of sample)
        console.log(`  v${e.stream_version} type ${e.type_code} data ${e.d} B, metadata ${e.m} B: ${e.metadata}\n     data: ${String(e.data).slice(0, 300)}`);
    });
  } finally {
    api.kill('SIGTERM');
    await new Promise((r) => api.once('exit', r));
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
