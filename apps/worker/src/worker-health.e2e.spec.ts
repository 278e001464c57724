import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testLogger } from '@rewind/messaging/kafka/testing';
import { createTestDatabase } from '../../../test/support/postgres';
import { startWorker, type Worker } from './worker';
import { loadWorkerConfig, WorkerConfigError } from './worker-config';

describe.each(['sqlite', 'postgres'] as const)('the worker HTTP server on the %s store', (storeName) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-worker-health-'));
  let drop: () => Promise<void> = async () => undefined;
  let worker: Worker;
  let base: string;

  beforeAll(async () => {
    const env: Record<string, string> = { REWIND_DATA_DIR: dataDir, REWIND_WORKER_HTTP_PORT: '0', REWIND_WORKER_HTTP_HOST: '127.0.0.1' };
    if (storeName === 'postgres') {
      const db = await createTestDatabase('rewind_worker_health');
      drop = db.drop;
      Object.assign(env, { REWIND_STORE: 'postgres', DATABASE_URL: db.url });
    }
    worker = await startWorker(loadWorkerConfig(env), () => testLogger);
    base = `http://127.0.0.1:${worker.health!.port}`;
  });
  afterAll(async () => {
    await worker?.stop();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers liveness', async () => {
    const live = await fetch(`${base}/health/live`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
  });

  it('is ready: store reachable, migrations applied, relay and projections watched', async () => {
    const ready = await fetch(`${base}/health/ready`);
    const body = (await ready.json()) as { status: string; checks: { name: string; ok: boolean; detail: string }[] };
    expect(ready.status).toBe(200);
    expect(body.checks.map((c) => [c.name, c.ok])).toEqual([
      ['store', true],
      ['migrations', true],
      ['subscribers', true],
    ]);
    expect(body.checks[2]!.detail).toMatch(/projection:.*relay:rewind\.events: \d+ behind/);
  });

  it('serves its metrics: default ones under their standard names, and each subscriber lag', async () => {
    const metrics = await fetch(`${base}/metrics`);
    const text = await metrics.text();
    expect(metrics.status).toBe(200);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).toMatch(/^rewind_subscriber_lag_events\{subscriber="relay:rewind.events"\} \d+$/m);
    expect(text).toMatch(/^rewind_subscriber_lag_events\{subscriber="projection:/m);
  });
});

describe('the worker HTTP server configuration', () => {
  it('can be turned off, and refuses a bad port naming the variable', () => {
    expect(loadWorkerConfig({ REWIND_WORKER_HTTP: 'off' }).http.enabled).toBe(false);
    expect(loadWorkerConfig({}).http).toEqual({ enabled: true, port: 3001, host: '0.0.0.0' });
    expect(() => loadWorkerConfig({ REWIND_WORKER_HTTP_PORT: '70000' })).toThrow(WorkerConfigError);
    expect(() => loadWorkerConfig({ REWIND_WORKER_HTTP_PORT: 'http' })).toThrow(/REWIND_WORKER_HTTP_PORT="http" is not valid/);
    expect(() => loadWorkerConfig({ REWIND_READY_STALL_SECONDS: '0' })).toThrow(/REWIND_READY_STALL_SECONDS="0" is not valid/);
  });
});
