import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, type Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import type { LogLine } from '../../../../test/support/logged-app';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { SessionService } from '@rewind/engine';
import { ReadModelsService } from '../projections/read-models.service';

/** Polls until `condition` holds (at most 20 s); the stall threshold is wall-clock time. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Gave up waiting for ${what}`);
}

describe.each(E2E_STORES)('health endpoints on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let anonymous: Http;
  /**
   * The app's log lines (at its default test level, error), kept rather than printed: the 503s
   * this file provokes are logged at ERROR on purpose, and the tests check that they are said.
   */
  const logged: string[] = [];
  const errorLines = () => logged.map((line) => JSON.parse(line) as LogLine).filter((line) => line.level === 'error');

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp(
      { ...target.env, REWIND_READY_STALL_SECONDS: '1', REWIND_SNAPSHOT_EVERY: '1' },
      { logDestination: { write: (line: string) => void logged.push(line) } },
    );
    anonymous = httpClient(t.baseUrl);
  });
  afterAll(async () => {
    await t.close();
    await cleanup();
  });

  it('answers liveness without an API key, and keeps /health', async () => {
    expect(await anonymous('GET', '/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await anonymous('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok', store: { reachable: true } } });
  });

  it('is ready when the store answers, the migrations are applied, the projections move and the embedding model is loaded', async () => {
    const ready = await anonymous('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ['store', true],
      ['migrations', true],
      ['subscribers', true],
      ['memory', true],
    ]);
    expect(ready.body.checks[1].detail).toBe('all applied');
    expect(ready.body.checks[2].detail).toContain('projection:');
    // Loaded before the app listened (issue 40): the first turns do not share a core with it.
    expect(ready.body.checks[3].detail).toBe('embedding model loaded');
  });

  it('is not ready (503, documented shape, naming the projection) while a projection is behind without moving, and ready again once it moves', async () => {
    const readModels = t.app.get(ReadModelsService);
    await readModels.supervisor.stop();
    try {
      expect((await t.http('POST', '/v1/sessions', { sessionId: `stall-${Date.now()}`, title: 'stall' })).status).toBe(201);
      await until(async () => (await anonymous('GET', '/health/ready')).status === 503, 'readiness to fail');
      const notReady = await anonymous('GET', '/health/ready');
      expect(notReady.body.error.code).toBe('not_ready');
      expect(notReady.body.error.message).toMatch(/^Not ready: subscribers: stalled past 1 s: projection:/);
      expect(notReady.body.error.details).toEqual([{ field: 'subscribers', message: expect.stringContaining('behind, stuck at') }]);
    } finally {
      readModels.supervisor.start();
    }
    await until(async () => (await anonymous('GET', '/health/ready')).status === 200, 'readiness to return');
    // Each 503 is an access line at ERROR (what an operator's alerting sees), and nothing else was logged at ERROR.
    const errors = errorLines();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors).toEqual(
      errors.map(() =>
        expect.objectContaining({ msg: 'GET /health/ready 503', req: expect.objectContaining({ url: '/health/ready' }), res: { statusCode: 503 } }),
      ),
    );
  });

  it('serves the default process metrics under their standard names', async () => {
    const metrics = await anonymous('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^process_cpu_seconds_total /m);
    expect(metrics.body).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(metrics.body).not.toContain('rewind_process_');
    expect(metrics.body).toMatch(/^rewind_subscriber_lag_events\{subscriber="projection:/m);
  });

  it("serves seed 001's store metrics: write latency, snapshot writes, restore time, storage size", async () => {
    const id = `metrics-${Date.now()}`;
    expect((await t.http('POST', '/v1/sessions', { sessionId: id, title: 'metrics' })).status).toBe(201);
    expect((await t.http('PUT', `/v1/sessions/${id}/memory/k`, { value: 1 })).status).toBe(200);
    expect((await t.http('GET', `/v1/sessions/${id}/state?at=1`)).status).toBe(200); // a past version: rebuilt from the store
    await t.app.get(SessionService).repository.flushSnapshots();
    const text = (await anonymous('GET', '/metrics')).body as string;
    expect(text).toMatch(/^rewind_event_append_duration_seconds_count\{outcome="ok"\} [1-9]/m);
    expect(text).toMatch(/^rewind_snapshot_writes_total\{outcome="ok"\} [1-9]/m);
    expect(text).toMatch(/^rewind_session_restore_duration_seconds_count [1-9]/m);
    expect(text).toMatch(/^rewind_store_size_bytes [1-9]/m);
  });

  it('logged nothing at ERROR over the whole file but the readiness 503s it provoked', () => {
    expect(errorLines().filter((line) => line.res?.statusCode !== 503 || line.req?.url !== '/health/ready')).toEqual([]);
  });
});
