import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Http } from '../support/http-client';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, item 2 (SSRF): a tenant writes compensation templates, so a rollback must not be a
 * way to make the server call where the tenant chooses and read the answer back.
 */

/** An "internal service" on loopback that records every request and answers as told. */
class InternalService {
  readonly requests: string[] = [];
  answer: (path: string) => { status: number; headers?: Record<string, string>; body: string } = () => ({ status: 200, body: '{"ok":true}' });
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        const a = this.answer(req.url ?? '');
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
        res.end(a.body);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const fastRetry = { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000 };

async function callAndUndo(http: Http, target: string, output: Record<string, unknown>) {
  const id = `adv-${randomUUID().slice(0, 8)}`;
  expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
  const started = await http('POST', `/v1/sessions/${id}/tool-calls`, {
    toolCallId: 'c1',
    tool: 'cancel_me',
    input: {},
    effect: { kind: 'reversible', compensation: { channel: 'http', target }, retry: fastRetry },
  });
  expect(started.status).toBe(201);
  expect((await http('POST', `/v1/sessions/${id}/tool-calls/c1/succeed`, { output })).status).toBe(200);
  const undo = await http('POST', `/v1/sessions/${id}/undo`, { waitMs: 5000 });
  expect([200, 202]).toContain(undo.status); // 202: the rollback needs attention (the compensation failed)
  const events = (await http('GET', `/v1/sessions/${id}/events`)).body.events as { type: string; data: Record<string, unknown> }[];
  return events.find((e) => e.type === 'CompensationApplied' || e.type === 'CompensationFailed')!;
}

describe.each(E2E_STORES)('egress policy for compensations, on the %s store', (storeName) => {
  const internal = new InternalService();
  let strict: TestApp; // the deployment default: loopback refused
  let allowing: TestApp; // loopback allowed, as the suites and the docs' examples need
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    await internal.start();
    const a = await storeEnv(storeName);
    cleanups.push(a.cleanup);
    strict = await startTestApp({ ...a.env, REWIND_EGRESS_ALLOW: '' });
    const b = await storeEnv(storeName);
    cleanups.push(b.cleanup);
    allowing = await startTestApp({ ...b.env, REWIND_EGRESS_MAX_RESPONSE_BYTES: '100' });
  });
  afterAll(async () => {
    await strict?.close();
    await allowing?.close();
    await internal.stop();
    for (const cleanup of cleanups) await cleanup();
  });

  it('refuses a host taken from a call’s data, at registration and at declaration, with a 400', async () => {
    const registered = await strict.http('PUT', '/v1/tools/steer', {
      kind: 'reversible',
      compensation: { channel: 'http', target: 'http://{{output.host}}/cancel' },
    });
    expect(registered.status).toBe(400);
    expect(registered.body.error).toMatchObject({ code: 'compensation_template_invalid', details: [{ field: 'compensation.target' }] });
    const id = `adv-${randomUUID().slice(0, 8)}`;
    await strict.http('POST', '/v1/sessions', { sessionId: id });
    for (const target of ['http://{{output.host}}/cancel', '{{output.url}}', 'http://x.example{{output.port}}/cancel', 'http://{{input.user}}@evil/']) {
      const declared = await strict.http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: `c-${randomUUID().slice(0, 4)}`,
        tool: 'steer',
        input: {},
        effect: { kind: 'reversible', compensation: { channel: 'http', target } },
      });
      expect(declared.status, target).toBe(400);
      expect(declared.body.error.code).toBe('compensation_template_invalid');
    }
    expect((await strict.http('GET', `/v1/sessions/${id}`)).body.version).toBe(1); // nothing persisted
  });

  it('refuses a kafka compensation onto Rewind’s own topics', async () => {
    for (const compensation of [
      { channel: 'kafka', target: 'rewind.commands' },
      { channel: 'kafka', target: 'billing.cancel', replyTopic: 'rewind.events' },
      { channel: 'kafka', target: '{{output.topic}}' },
    ]) {
      const res = await strict.http('PUT', '/v1/tools/publisher', { kind: 'reversible', compensation });
      expect(res.status, JSON.stringify(compensation)).toBe(400);
      expect(res.body.error.code).toBe('compensation_template_invalid');
    }
  });

  it('never reaches loopback by default: neither an address literal nor a name that resolves to it', async () => {
    const port = new URL(internal.url).port;
    const before = internal.requests.length;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::ffff:127.0.0.1]:${port}`]) {
      const outcome = await callAndUndo(strict.http, `http://${host}/cancel/{{output.id}}`, { id: 'b1' });
      expect(outcome.type, host).toBe('CompensationFailed');
      expect(String(outcome.data.error)).toMatch(/loopback, private, link-local or reserved/);
    }
    const metadata = await callAndUndo(strict.http, 'http://169.254.169.254/latest/meta-data/{{output.id}}', { id: 'x' });
    expect(metadata.type).toBe('CompensationFailed');
    expect(String(metadata.data.error)).toMatch(/REWIND_EGRESS_ALLOW/);
    expect(internal.requests.length).toBe(before);
  });

  it('URL-encodes template values: an id cannot climb out of its path segment', async () => {
    internal.answer = () => ({ status: 200, body: '{"ok":true}' });
    const outcome = await callAndUndo(allowing.http, `${internal.url}/bookings/{{output.id}}/cancel`, { id: '../../admin/delete-all?x=' });
    expect(outcome.type).toBe('CompensationApplied');
    expect(internal.requests.at(-1)).toBe('POST /bookings/..%2F..%2Fadmin%2Fdelete-all%3Fx%3D/cancel');
  });

  it('does not follow redirects unless allowed', async () => {
    internal.answer = (path) =>
      path.startsWith('/admin') ? { status: 200, body: '{"secret":"internal"}' } : { status: 307, headers: { location: '/admin/secrets' }, body: '' };
    const outcome = await callAndUndo(allowing.http, `${internal.url}/hop/{{output.id}}`, { id: 'r1' });
    expect(outcome.type).toBe('CompensationFailed');
    expect(String(outcome.data.error)).toMatch(/redirects are not followed/);
    expect(internal.requests.some((r) => r.includes('/admin'))).toBe(false);
  });

  it('records an answer within the configured bound', async () => {
    internal.answer = () => ({ status: 200, body: JSON.stringify({ dump: 'x'.repeat(5000) }) });
    const outcome = await callAndUndo(allowing.http, `${internal.url}/big/{{output.id}}`, { id: 'big' });
    expect(outcome.type).toBe('CompensationApplied');
    const recorded = (outcome.data.response as { body: unknown }).body;
    expect(JSON.stringify(recorded).length).toBeLessThanOrEqual(110);
  });
});
