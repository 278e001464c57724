/**
 * Projection rebuild throughput: fills an event store with realistic 20-turn agent sessions
 * (user message, tool call start and result, agent message, memory write; some undos and
 * rollbacks with compensations), appended straight through the store (no HTTP), brings the
 * live projections up to date, then times `rewind projections rebuild --verify` in a child
 * process and reports events/s and the child's peak RSS.
 *
 * Usage (after `npm run build`):
 *   node dist/test/bench/rebuild.bench.js [--quick] [--events N] [--store sqlite|postgres|both] [--batch-size N]
 * Defaults: 1,000,000 events (--quick: 100,000), both stores. PostgreSQL: a fresh database is
 * created from REWIND_BENCH_DATABASE_URL (default REWIND_TEST_DATABASE_URL, then
 * postgres://postgres@127.0.0.1:5432/postgres) and dropped afterwards.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runCli } from '@rewind/cli';
import { projectionsCommands } from '@rewind/cli';
import type { EventStore } from '@rewind/event-store';
import { PostgresEventStore } from '@rewind/event-store/postgres';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { ProjectionSupervisor, ReadModelDatabase, SILENT_LOGGER, type ReadModelConfig } from '@rewind/projections';
import type * as ProjectionsTesting from '@rewind/projections/testing';
import { builtTestHelper } from './built-test-helper';

const { appendWorkload } = builtTestHelper<typeof ProjectionsTesting>('libs/projections/dist/testing/workload.js');

interface ChildReport {
  exitCode: number;
  elapsedMs: number;
  events: number;
  swapMs: number;
  identical: boolean | null;
  maxRssMb: number;
  sampledPeakRssMb: number;
  /** CPU time of the rebuild process (user + system), seconds. */
  cpuSeconds: number;
  /** 1-minute load average when the rebuild ended (other work on the machine slows it down). */
  loadAverage: number;
}

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const totalEvents = Number(flag('events') ?? (quick ? 100_000 : 1_000_000));
const stores = (flag('store') ?? 'both') === 'both' ? ['sqlite', 'postgres'] : [flag('store')!];
const batchSize = flag('batch-size') ?? '5000';
const ADMIN_URL = process.env.REWIND_BENCH_DATABASE_URL ?? process.env.REWIND_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Child mode: run the CLI's rebuild --verify in this process and report time and peak memory. */
async function child(env: Record<string, string>): Promise<void> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  let stdout = '';
  const started = Date.now();
  const exitCode = await runCli(
    ['projections', 'rebuild', '--verify', '--json', '--batch-size', batchSize],
    { stdout: { write: (c: string) => (stdout += c) }, stderr: process.stderr, env },
    projectionsCommands,
  );
  const elapsedMs = Date.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const result = exitCode === 0 || stdout.trim().startsWith('{') ? JSON.parse(stdout) : null;
  const report: ChildReport = {
    exitCode,
    elapsedMs,
    events: result?.events ?? 0,
    swapMs: result?.swapMs ?? 0,
    identical: result?.verification?.identical ?? null,
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    sampledPeakRssMb: mb(peak),
    cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    loadAverage: loadavg()[0]!,
  };
  process.stdout.write(`REPORT ${JSON.stringify(report)}\n`);
}

async function runChild(env: Record<string, string>): Promise<ChildReport> {
  const proc = spawn(process.execPath, [__filename, '--child', '--batch-size', batchSize], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  const code = await new Promise<number>((resolve) => proc.once('exit', (c) => resolve(c ?? 1)));
  const line = out.split('\n').find((l) => l.startsWith('REPORT '));
  if (!line) throw new Error(`the rebuild child exited with ${code} without a report:\n${out}`);
  return JSON.parse(line.slice('REPORT '.length)) as ChildReport;
}

async function fillAndCatchUp(store: EventStore, readModels: ReadModelConfig, concurrency: number): Promise<void> {
  let t = Date.now();
  const written = await appendWorkload(store, {
    events: totalEvents,
    activeSessions: 200,
    concurrency,
    seed: 2026,
    onProgress: (n) => {
      if (n % 100_000 < 10_000) process.stdout.write(`\r  filling: ${fmt(n)} events`);
    },
  });
  const fillMs = Date.now() - t;
  log(`\r  filled ${fmt(written.events)} events (${fmt(written.sessions)} sessions, ${fmt(written.appends)} appends) in ${(fillMs / 1000).toFixed(1)} s`);
  const db = await ReadModelDatabase.open(readModels);
  t = Date.now();
  const runners = new ProjectionSupervisor(store, db, { batchSize: 5000, logger: SILENT_LOGGER });
  await runners.catchUp();
  await runners.stop();
  const catchUpMs = Date.now() - t;
  log(
    `  live projections caught up (3 projections, one after the other): ${(catchUpMs / 1000).toFixed(1)} s, ${fmt((written.events * 3 * 1000) / catchUpMs)} event applications/s`,
  );
  await db.close();
}

function printReport(name: string, r: ChildReport): void {
  log(`  rewind projections rebuild --verify (child process, exit code ${r.exitCode}):`);
  log(
    `    ${fmt(r.events)} events in ${(r.elapsedMs / 1000).toFixed(1)} s = ${fmt((r.events * 1000) / r.elapsedMs)} events/s (3 projections, rebuild + verify + swap)`,
  );
  log(`    swap lock held ${fmt(r.swapMs)} ms; verification ${r.identical ? 'identical' : 'FOUND DIFFERENCES'}`);
  log(`    peak RSS ${r.maxRssMb} MB (getrusage maxrss; sampled ${r.sampledPeakRssMb} MB)`);
  log(
    `    CPU ${r.cpuSeconds.toFixed(1)} s in the rebuild process (${fmt(r.events / r.cpuSeconds)} events per CPU-second); load average ${r.loadAverage.toFixed(2)} on ${cpus().length} cores`,
  );
  log(`  => ${name}: ${fmt((r.events * 1000) / r.elapsedMs)} events/s, peak RSS ${r.maxRssMb} MB`);
}

async function benchSqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-rebuild-bench-'));
  try {
    const filename = join(dir, 'rewind.db');
    log(`\nSQLite (${filename}, WAL, synchronous=FULL for the projections; the fill uses NORMAL)`);
    const store = new SqliteEventStore({ filename, synchronous: 'NORMAL' });
    await fillAndCatchUp(store, { type: 'sqlite', filename }, 1);
    await store.close();
    const report = await runChild({ REWIND_STORE: 'sqlite', REWIND_DATA_DIR: dir, REWIND_SQLITE_SYNCHRONOUS: 'FULL' });
    printReport('SQLite', report);
    if (report.exitCode !== 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchPostgres(): Promise<void> {
  const database = `rewind_bench_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  try {
    log(`\nPostgreSQL (fresh database ${database})`);
    const store = await PostgresEventStore.open({ connectionString: url.toString(), poolSize: 8 });
    await fillAndCatchUp(store, { type: 'postgres', url: url.toString() }, 8);
    await store.close();
    const report = await runChild({ REWIND_STORE: 'postgres', DATABASE_URL: url.toString() });
    printReport('PostgreSQL', report);
    if (report.exitCode !== 0) process.exitCode = 1;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  if (argv.includes('--child')) return child(process.env as Record<string, string>);
  log(
    `Projection rebuild benchmark: ${fmt(totalEvents)} events per store (node ${process.version}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)})`,
  );
  for (const store of stores) {
    if (store === 'sqlite') await benchSqlite();
    else if (store === 'postgres') await benchPostgres();
    else throw new Error(`--store ${store}: expected sqlite, postgres or both`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
