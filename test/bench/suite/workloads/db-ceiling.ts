/**
 * The physical reference: how many single-row INSERT commits per second the database itself
 * takes on this machine, with its durability settings as they are (fsync, synchronous_commit),
 * into a simple table, with 1 and with 16 connections — measured with node-postgres (the driver
 * every system here uses) and, when it is installed, with pgbench (C, so the client costs less).
 * The same for SQLite (one connection, WAL, synchronous=FULL, as Rewind's embedded store).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { createBenchDatabase, withClient } from '../databases';
import type { Row } from '../results';
import type { Sizes } from '../sizes';

const run = promisify(execFile);

async function nodeCeiling(url: string, connections: number, seconds: number): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  try {
    let commits = 0;
    const deadline = performance.now() + seconds * 1000;
    const start = performance.now();
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < deadline) {
          await c.query({ name: 'ins', text: 'INSERT INTO ceiling (v) VALUES ($1)', values: ['hello'] });
          commits++;
        }
      }),
    );
    return commits / ((performance.now() - start) / 1000);
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

async function pgbenchCeiling(url: string, connections: number, seconds: number): Promise<number | null> {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-bench-pgbench-'));
  try {
    const script = join(dir, 'insert.sql');
    writeFileSync(script, "INSERT INTO ceiling (v) VALUES ('hello');\n");
    const { stdout } = await run(
      'pgbench',
      ['-n', '-f', script, '-c', String(connections), '-j', String(Math.min(connections, 2)), '-T', String(seconds), url],
      {
        timeout: (seconds + 30) * 1000,
      },
    );
    const match = /tps = ([\d.]+)/.exec(stdout);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sqliteCeiling(seconds: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-bench-sqlite-'));
  const db = new Database(join(dir, 'ceiling.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE ceiling (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO ceiling (v) VALUES (?)');
    let commits = 0;
    const start = performance.now();
    const deadline = start + seconds * 1000;
    while (performance.now() < deadline) {
      insert.run('hello');
      commits++;
    }
    return commits / ((performance.now() - start) / 1000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function measureCeiling(runId: string, sizes: Sizes): Promise<Row[]> {
  const db = await createBenchDatabase(runId, 'ceiling');
  const rows: Row[] = [];
  try {
    await withClient(db.url, (c) => c.query('CREATE TABLE ceiling (id bigserial PRIMARY KEY, v text NOT NULL)'));
    for (const connections of [1, 16]) {
      const viaNode = await nodeCeiling(db.url, connections, sizes.ceilingSeconds);
      const viaPgbench = await pgbenchCeiling(db.url, connections, sizes.ceilingSeconds);
      const best = Math.max(viaNode, viaPgbench ?? 0);
      rows.push({
        workload: 'DB',
        key: `DB.ceiling.${connections}`,
        label: `PostgreSQL single-row INSERT commits/s, ${connections} connection${connections > 1 ? 's' : ''}`,
        system: 'postgres',
        store: 'postgres',
        path: 'sql',
        throughput: best,
        notes: [
          `node-postgres ${Math.round(viaNode)}/s${viaPgbench !== null ? `, pgbench ${Math.round(viaPgbench)}/s` : ', pgbench not available'}; the higher is the ceiling`,
        ],
        extra: { nodePostgres: viaNode, pgbench: viaPgbench, seconds: sizes.ceilingSeconds },
      });
      console.error(`  DB ceiling ${connections} conn: node-pg ${Math.round(viaNode)}/s, pgbench ${viaPgbench === null ? 'n/a' : Math.round(viaPgbench)}/s`);
    }
  } finally {
    await db.drop();
  }
  const sqlite = sqliteCeiling(sizes.ceilingSeconds);
  rows.push({
    workload: 'DB',
    key: 'DB.ceiling.sqlite',
    label: 'SQLite single-row INSERT commits/s (WAL, synchronous=FULL, 1 connection)',
    system: 'sqlite',
    store: 'sqlite',
    path: 'sql',
    throughput: sqlite,
    notes: ['better-sqlite3, the same settings as Rewind’s embedded store'],
  });
  console.error(`  DB ceiling SQLite: ${Math.round(sqlite)}/s`);
  return rows;
}
