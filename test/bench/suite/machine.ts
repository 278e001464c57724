/** The machine, runtime and database the figures were measured on. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, type } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ADMIN_URL, withClient } from './databases';
import { busySince, cpuTimes } from './cpu';
import { sleep } from './recorder';

export interface MachineFacts {
  date: string;
  nproc: number;
  memoryBytes: number | null;
  cpuModel: string;
  os: string;
  node: string;
  postgres: {
    version: string;
    settings: Record<string, string>;
  } | null;
  postgresError?: string;
  sqlite: string;
  packages: Record<string, string>;
  git: string | null;
  loadAverage: number[];
}

function nproc(): number {
  try {
    return Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    return availableParallelism();
  }
}

function memoryBytes(): number | null {
  try {
    const match = /^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(process.cwd(), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

function gitDescribe(): string | null {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().length > 0;
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return null;
  }
}

/** Settings that decide what a commit costs, and a few that shape the rest. */
export const PG_SETTINGS = [
  'fsync',
  'synchronous_commit',
  'wal_sync_method',
  'full_page_writes',
  'commit_delay',
  'wal_level',
  'shared_buffers',
  'max_connections',
];

export async function describeMachine(): Promise<MachineFacts> {
  let postgres: MachineFacts['postgres'] = null;
  let postgresError: string | undefined;
  try {
    postgres = await withClient(ADMIN_URL, async (client) => {
      const version = (await client.query<{ version: string }>('SELECT version()')).rows[0]!.version;
      const settings: Record<string, string> = {};
      for (const name of PG_SETTINGS) settings[name] = (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
      return { version, settings };
    });
  } catch (error) {
    postgresError = (error as Error).message;
  }
  const db = new Database(':memory:');
  const sqlite = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  db.close();
  return {
    date: new Date().toISOString(),
    nproc: nproc(),
    memoryBytes: memoryBytes(),
    cpuModel: cpuModel(),
    os: `${type()} ${release()}`,
    node: process.version,
    postgres,
    ...(postgresError ? { postgresError } : {}),
    sqlite,
    packages: Object.fromEntries(
      [
        '@event-driven-io/emmett',
        '@event-driven-io/emmett-postgresql',
        '@langchain/langgraph-checkpoint-postgres',
        '@langchain/langgraph-checkpoint',
        '@langchain/core',
        'pg',
        'better-sqlite3',
        'fastify',
        '@nestjs/core',
      ].map((name) => [name, packageVersion(name)]),
    ),
    git: gitDescribe(),
    loadAverage: loadavg(),
  };
}

/** The share of the machine's CPU that something else uses right now (sampled over `ms`). */
export async function backgroundBusy(ms = 1000): Promise<number | null> {
  const from = cpuTimes();
  await sleep(ms);
  return busySince(from);
}

/**
 * Waits (up to `maxMs`) for the machine to be quiet (< `threshold` busy over a second) before a
 * job, since other work on a 2-core machine shows up in every tail latency. Returns the last reading.
 */
export async function waitForQuiet(maxMs: number, threshold = 0.25): Promise<number | null> {
  const deadline = Date.now() + maxMs;
  let busy = await backgroundBusy();
  while (busy !== null && busy > threshold && Date.now() < deadline) busy = await backgroundBusy();
  return busy;
}
