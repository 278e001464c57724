import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from './health-server';
import type { Readiness } from './readiness';

describe('the health server (real HTTP on a free port)', () => {
  let readiness: Readiness = { ready: true, checks: [{ name: 'store', ok: true, detail: 'reachable' }] };
  let server: HealthServer;
  let base: string;
  beforeAll(async () => {
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      ready: async () => readiness,
      metrics: async () => 'up 1\n',
      metricsContentType: 'text/plain; version=0.0.4',
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.close());

  it('answers liveness, readiness and metrics', async () => {
    const live = await fetch(`${base}/health/live`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${base}/health/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', checks: readiness.checks }]);
    const metrics = await fetch(`${base}/metrics`);
    expect([metrics.status, metrics.headers.get('content-type'), await metrics.text()]).toEqual([200, 'text/plain; version=0.0.4', 'up 1\n']);
  });

  it('answers 503 in the documented error shape when not ready', async () => {
    readiness = { ready: false, checks: [{ name: 'migrations', ok: false, detail: 'migrations not applied: x' }] };
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ error: { code: 'not_ready', details: [{ field: 'migrations', message: 'migrations not applied: x' }] } });
  });

  it('refuses other paths and methods in the documented error shape', async () => {
    const missing = await fetch(`${base}/nope`);
    expect([missing.status, ((await missing.json()) as { error: { code: string } }).error.code]).toEqual([404, 'not_found']);
    const post = await fetch(`${base}/health/live`, { method: 'POST', body: 'x' });
    expect([post.status, ((await post.json()) as { error: { code: string } }).error.code]).toEqual([405, 'method_not_allowed']);
  });
});
