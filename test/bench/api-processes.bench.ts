/**
 * REWIND_API_PROCESSES A/B (issue 40): W4's load (100 concurrent sessions, one request per step,
 * the suite's load client in its own process) against the built API on PostgreSQL with one API
 * process and with two, alternating (1, 2, 1, 2, ...) so that both see the same host. Each round
 * starts the API on a fresh database, waits for every process to listen, runs the load, stops it.
 * Prints one line per round and the medians; the host is shared, so compare the ratio.
 *
 * Usage: npm run build && node dist/test/bench/api-processes.bench.js [rounds=3] [steps=100]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as PostgresTesting from '@rewind/event-store/testing/postgres';
import { builtTestHelper } from './built-test-helper';
import { runLoadClient } from './suite/workloads/w4-throughput';

const { createTestDatabase } = builtTestHelper<typeof PostgresTesting>('libs/event-store/dist/testing/postgres-test-database.js');

const ROUNDS = Number(process.argv[2] ?? 3);
const STEPS = Number(process.argv[3] ?? 100);
const API_KEY = 'procs-bench-key-0123456789abcdef';
const PORT = 3900 + Math.floor(Math.random() * 90);

async function startApi(processes: number, databaseUrl: string, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(process.cwd(), 'apps/api/dist/main.js')], {
    env: {
      ...process.env,
      REWIND_STORE: 'postgres',
      DATABASE_URL: databaseUrl,
      REWIND_DATA_DIR: dataDir,
      REWIND_ADMIN_KEY: API_KEY,
      REWIND_API_PROCESSES: String(processes),
      REWIND_RATE_LIMIT_PER_SECOND: '0',
      PORT: String(PORT),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 180_000;
  // Every process listening (one line each), and /health/ready answering (the model loaded).
  while ((output.match(/Rewind is listening/g)?.length ?? 0) < processes || !(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the API did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return child;
}

async function ready(): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${PORT}/health/ready`)).ok;
  } catch {
    return false;
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const results: Record<1 | 2, { rps: number; p50: number; p99: number }[]> = { 1: [], 2: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const processes of [1, 2] as const) {
      const database = await createTestDatabase('rewind_procs_bench');
      const dataDir = mkdtempSync(join(tmpdir(), 'rewind-procs-bench-'));
      const api = await startApi(processes, database.url, dataDir);
      try {
        const result = await runLoadClient({
          unit: 'step',
          baseUrl: `http://127.0.0.1:${PORT}`,
          apiKey: API_KEY,
          sessions: 100,
          steps: STEPS,
          warmup: 10,
          prefix: `r${round}p${processes}`,
          client: 'http',
        });
        if (result.errors > 0) throw new Error(`${result.errors} failed requests, first: ${result.firstError}`);
        const row = { rps: result.requestsPerSecond, p50: result.latency.p50, p99: result.latency.p99 };
        results[processes].push(row);
        console.log(
          `round ${round + 1}, ${processes} process(es): ${row.rps.toFixed(0)} requests/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms`,
        );
      } finally {
        await stop(api);
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  const one = median(results[1].map((r) => r.rps));
  const two = median(results[2].map((r) => r.rps));
  console.log(`median requests/s: 1 process ${one.toFixed(0)}, 2 processes ${two.toFixed(0)}: ${(two / one).toFixed(2)}×`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
