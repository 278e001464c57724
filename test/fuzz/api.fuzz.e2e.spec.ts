import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '@rewind/event-store';
import { EVENT_STORE } from '@rewind/api';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';
import { sendRaw } from './raw-http';
import { requestsFrom, type FuzzRequest, type KnownIds, type OpenApiDocument } from './openapi-requests';

/** Requests per store per run (REWIND_FUZZ_RUNS raises it for a longer hunt). */
const RUNS = Number(process.env.REWIND_FUZZ_RUNS ?? 5_000);
/** Raw requests over a real socket per store: the HTTP parser's own refusals. */
const RAW_RUNS = Math.ceil(RUNS / 20);

const ERROR_SHAPE = {
  error: { code: expect.stringMatching(/^[a-z][a-z_]*$/), message: expect.stringMatching(/\S/), details: expect.any(Array) },
};

describe.each(E2E_STORES)('fuzzing every operation of the OpenAPI document on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let store: EventStore;
  let doc: OpenApiDocument;
  const ids: KnownIds = { sessions: [], toolCalls: ['c1', 'c2', 'nope'], turns: ['t1', 't2'], rollbacks: ['no-such-rollback'], tools: ['book_hotel'] };

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp({ ...target.env, REWIND_MAX_BODY_BYTES: String(64 * 1024) });
    store = t.app.get<EventStore>(EVENT_STORE);
    const served = await t.http('GET', '/docs/openapi.json');
    expect(served.status).toBe(200);
    doc = served.body;
    // Sessions with something in them, so valid requests reach the domain rather than a 404.
    for (let i = 0; i < 3; i++) {
      // One id as long as ids may be (128), so routing limits show up as refused valid requests.
      const id = i === 2 ? `fuzz-${storeName}-`.padEnd(128, 'x') : `fuzz-${storeName}-${i}`;
      ids.sessions.push(id);
      expect((await t.http('POST', '/v1/sessions', { sessionId: id, title: 'fuzz' })).status).toBe(201);
      const steps = await t.http('POST', `/v1/sessions/${id}/steps`, {
        steps: [
          { kind: 'message', role: 'user', content: 'Book a hotel', turnId: 't1' },
          { kind: 'checkpoint', label: 'start' },
          { kind: 'tool-call', toolCallId: 'c1', tool: 'search', input: { city: 'Lisbon' } },
          { kind: 'tool-call', toolCallId: 'c2', tool: 'lookup', input: 'x' },
          { kind: 'message', role: 'agent', content: 'Looking', turnId: 't1' },
        ],
      });
      expect(steps.status).toBe(201);
      const undo = await t.http('POST', `/v1/sessions/${id}/undo`, {});
      expect(undo.status).toBe(200);
      if (typeof undo.body.rollbackId === 'string') ids.rollbacks.push(undo.body.rollbackId);
    }
    ids.sessions.push('no-such-session');
    expect((await t.http('PUT', '/v1/tools/book_hotel', { kind: 'none' })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
  });

  it(`answers ${RUNS} generated requests (valid, boundary, wrong types, hostile text and headers) without a 5xx; every refusal is in the documented shape and wrote nothing`, async () => {
    const statuses = new Map<number, number>();
    let refusedWrites = 0;
    let sequence = 0;
    const send = async (request: FuzzRequest) => {
      const correlationId = `fuzz-${++sequence}`;
      const write = request.method !== 'GET';
      const before = write ? await store.lastPosition() : 0;
      const response = await t.app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: { 'x-correlation-id': correlationId, ...request.headers },
        ...(request.payload !== undefined ? { payload: request.payload } : {}),
      });
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      const where = `${request.method} ${request.url.slice(0, 200)} ${request.payload?.slice(0, 200) ?? ''} -> ${response.statusCode} ${response.body.slice(0, 300)}`;
      expect(response.statusCode, where).toBeLessThan(500);
      if (response.statusCode < 400) return;
      // A request built from the document always finds its route.
      if (request.valid) expect(response.json().error?.code, where).not.toBe('route_not_found');
      expect(response.headers['content-type'], where).toMatch(/^application\/json/);
      const body = response.json();
      expect(Object.keys(body), where).toEqual(['error']);
      expect(body, where).toMatchObject(ERROR_SHAPE);
      for (const detail of body.error.details) expect(typeof detail.message, where).toBe('string');
      if (!write) return;
      refusedWrites++;
      // Nothing this request did may be in the log. (Events a rollback saga appends meanwhile
      // carry their own correlation id, so they are told apart from this request's.)
      const after = await store.lastPosition();
      if (after === before) return;
      const appended = await store.readAll({ after: before, limit: after - before });
      expect(
        appended.filter((e) => e.metadata.correlationId === correlationId),
        where,
      ).toEqual([]);
    };
    await fc.assert(
      fc.asyncProperty(requestsFrom(doc, ids, `Bearer ${t.adminKey}`), async (request) => {
        await send(request);
      }),
      { numRuns: RUNS },
    );
    const count = (test: (status: number) => boolean) => [...statuses].filter(([s]) => test(s)).reduce((sum, [, n]) => sum + n, 0);
    // A run that only ever hit the edge would prove little: valid requests must reach the domain.
    expect(count((s) => s < 300)).toBeGreaterThan(RUNS / 10);
    expect(refusedWrites).toBeGreaterThan(RUNS / 10);
    expect(count(() => true)).toBe(RUNS);
    console.log(`${storeName}: ${RUNS} requests, ${refusedWrites} refused writes; by status ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  }, 300_000);

  it(`answers ${RAW_RUNS} raw HTTP requests with arbitrary bytes in the request line and headers in the documented shape`, async () => {
    const port = Number(new URL(t.baseUrl).port);
    const paths = ['/v1/sessions', `/v1/sessions/${ids.sessions[0]}`, `/v1/sessions/${ids.sessions[0]}/events?from=1`, '/health'];
    const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => Buffer.from(b).toString('latin1'));
    const rawRequest = fc.record({
      method: fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), bytes(8)),
      path: fc.oneof(
        fc.constantFrom(...paths),
        bytes(40).map((b) => `/v1/sessions/${b}`),
      ),
      name: fc.oneof(fc.constantFrom('X-Odd', 'Idempotency-Key', 'If-Match', 'Content-Type', 'X-Correlation-Id'), bytes(20)),
      value: fc.oneof(
        bytes(200),
        fc.integer({ min: 15_000, max: 40_000 }).map((n) => 'v'.repeat(n)),
      ),
    });
    await fc.assert(
      fc.asyncProperty(rawRequest, async ({ method, path, name, value }) => {
        const head = `${method} ${path} HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer ${t.adminKey}\r\n${name}: ${value}\r\nConnection: close\r\n\r\n`;
        const { status, body } = await sendRaw(port, head);
        const where = `${JSON.stringify(head.slice(0, 300))} -> ${status} ${body.slice(0, 300)}`;
        expect(status, where).toBeGreaterThanOrEqual(100);
        expect(status, where).toBeLessThan(500);
        if (status >= 400 && method !== 'HEAD') expect(JSON.parse(body), where).toMatchObject(ERROR_SHAPE);
      }),
      { numRuns: RAW_RUNS },
    );
  }, 300_000);
});
