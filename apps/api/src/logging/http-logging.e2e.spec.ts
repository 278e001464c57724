import type { EventStore } from '@rewind/event-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_STORE } from '../infrastructure/tokens';
import { ReadModelsService } from '../projections/read-models.service';
import { startLoggedApp } from '../../../../test/support/logged-app';

describe('logs at the default level (log)', () => {
  let t: Awaited<ReturnType<typeof startLoggedApp>>;
  beforeAll(async () => {
    t = await startLoggedApp('log', { REWIND_READY_STALL_SECONDS: '1' });
  });
  afterAll(() => t.close());

  it('writes one JSON object per line, without colour codes, and no route-mapping or module lines', () => {
    expect(t.raw.length).toBeGreaterThan(0);
    for (const line of t.raw) {
      expect(line.endsWith('\n')).toBe(true);
      expect(line).not.toContain('\u001b[');
      expect(() => JSON.parse(line)).not.toThrow();
    }
    const lines = t.lines();
    expect(lines.every((l) => typeof l.time === 'string' && ['info', 'warn', 'error'].includes(l.level))).toBe(true);
    expect(lines.filter((l) => /Mapped \{/.test(l.msg) || l.context === 'InstanceLoader')).toEqual([]);
  });

  it('keeps a valid X-Request-Id, echoes it, and logs one access line for the request carrying it', async () => {
    const response = await fetch(`${t.base}/health/live`, { headers: { 'x-request-id': 'client-req-1' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('client-req-1');
    const access = t.lines().filter((l) => l.requestId === 'client-req-1');
    expect(access).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'GET /health/live 200',
        req: { id: 'client-req-1', method: 'GET', url: '/health/live' },
        res: { statusCode: 200 },
      }),
    ]);
    expect(access[0]!.durationMs).toEqual(expect.any(Number));
  });

  it('generates a request id when none (or a malformed one) was sent, and echoes it', async () => {
    for (const headers of [{}, { 'x-request-id': 'has spaces and ünïcode' }] as Record<string, string>[]) {
      const response = await fetch(`${t.base}/health/live`, { headers });
      const id = response.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(t.lines().filter((l) => l.requestId === id)).toHaveLength(1);
    }
  });

  it('carries the request id into the events as their correlation id unless X-Correlation-Id is sent; never logs the API key', async () => {
    const store = t.app.get<EventStore>(EVENT_STORE);
    const post = (sessionId: string, headers: Record<string, string>) =>
      fetch(`${t.base}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ sessionId, title: 'logs' }),
      });
    expect((await post('by-request-id', { 'x-request-id': 'req-for-events' })).status).toBe(201);
    expect((await post('by-correlation-id', { 'x-request-id': 'req-2', 'x-correlation-id': 'corr-2' })).status).toBe(201);
    const events = await store.readAll({ after: 0, limit: 100 });
    expect(events.find((e) => e.metadata.sessionId === 'by-request-id')?.metadata.correlationId).toBe('req-for-events');
    expect(events.find((e) => e.metadata.sessionId === 'by-correlation-id')?.metadata.correlationId).toBe('corr-2');
    expect(t.lines().find((l) => l.requestId === 'req-for-events')).toMatchObject({ msg: 'POST /v1/sessions 201' });
    expect(t.raw.join('')).not.toContain(t.adminKey);
  });

  it('logs a refused request at info with its status (a 4xx is the client’s, not an alert)', async () => {
    const response = await fetch(`${t.base}/v1/sessions`, { headers: { 'x-request-id': 'unauthenticated-1' } });
    expect(response.status).toBe(401);
    expect(t.lines().filter((l) => l.requestId === 'unauthenticated-1')).toEqual([expect.objectContaining({ level: 'info', msg: 'GET /v1/sessions 401' })]);
  });

  it('logs a 5xx at error, without an invented stack', async () => {
    // /health/ready answers 503 once a projection is behind without moving for the threshold (1 s here).
    const readModels = t.app.get(ReadModelsService);
    await readModels.supervisor.stop();
    try {
      const write = await fetch(`${t.base}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: 'stalled', title: 'x' }),
      });
      expect(write.status).toBe(201);
      let status = 0;
      for (let i = 0; i < 100 && status !== 503; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await fetch(`${t.base}/health/ready`, { headers: { 'x-request-id': `ready-${i}` } })).status;
      }
      expect(status).toBe(503);
      const line = t
        .lines()
        .filter((l) => l.res?.statusCode === 503)
        .at(-1)!;
      expect(line).toMatchObject({ level: 'error', msg: 'GET /health/ready 503' });
      expect(line).not.toHaveProperty('err');
    } finally {
      readModels.supervisor.start();
    }
  });
});
