import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '@rewind/event-store';
const MAX_JSON_DEPTH = 128;
import type { Http, HttpResponse } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { EVENT_STORE } from '../infrastructure/tokens';
import { sendRaw } from '../../../../test/fuzz/raw-http';

/** Sends bytes fetch() refuses to send (bad header bytes, huge headers) and reads the answer. */
async function rawRequest(port: number, head: string): Promise<{ status: number; body: any }> {
  const { status, body } = await sendRaw(port, head.replace(/\r\n\r\n$/, '\r\nConnection: close\r\n\r\n'));
  try {
    return { status, body: JSON.parse(body) };
  } catch {
    return { status, body };
  }
}

/** JSON text of an array nested `levels` deep (as text: JSON.stringify would overflow the stack itself). */
const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

describe.each(E2E_STORES)('hostile input on the %s store: a 4xx in the documented shape, never a 5xx, nothing written', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  let store: EventStore;
  let port: number;
  let id: string;

  /** The documented shape, with the field the refusal names. */
  const expectRefusal = (res: HttpResponse, status: number, field?: string, message?: RegExp) => {
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
    expect(res.body).toEqual({ error: { code: expect.any(String), message: expect.any(String), details: expect.any(Array) } });
    if (field !== undefined) expect(res.body.error.details.map((d: { field?: string }) => d.field)).toContain(field);
    if (message !== undefined) expect(res.body.error.message).toMatch(message);
  };

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp({ ...target.env, REWIND_MAX_BODY_BYTES: String(256 * 1024) });
    http = t.http;
    store = t.app.get<EventStore>(EVENT_STORE);
    port = Number(new URL(t.baseUrl).port);
    id = `hostile-${Date.now()}`;
    expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    expect((await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'hello' })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
  });

  /** Every refused write below must leave the log as it was. */
  let positionBefore = 0;
  beforeAll(async () => {
    positionBefore = await store.lastPosition();
  });
  afterAll(async () => {
    expect(await store.lastPosition()).toBe(positionBefore);
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels by field, before anything recurses into it`, async () => {
    for (const levels of [MAX_JSON_DEPTH + 1, 5_000, 50_000]) {
      const res = await http('PUT', `/v1/sessions/${id}/memory/deep`, `{"value":${nested(levels)}}`);
      expectRefusal(res, 400, 'value', new RegExp(`nested more than ${MAX_JSON_DEPTH} levels`));
    }
    const inStep = await http('POST', `/v1/sessions/${id}/steps`, `{"steps":[{"kind":"tool-call","toolCallId":"c","tool":"t","input":${nested(5_000)}}]}`);
    expectRefusal(inStep, 400, 'steps.0.input');
  });

  it('refuses a null (or non-object) item in a batch by its index', async () => {
    const valid = { kind: 'message', role: 'user', content: 'ok' };
    for (const item of [null, 5, 'step', true, [], [valid]]) {
      const res = await http('POST', `/v1/sessions/${id}/steps`, { steps: [valid, item] });
      expectRefusal(res, 400, 'steps.1', /steps\[1\] must be an object/);
    }
    expectRefusal(await http('POST', `/v1/sessions/${id}/steps`, { steps: { 0: valid } }), 400, 'steps', /steps must be an array/);
    expectRefusal(await http('POST', `/v1/sessions/${id}/steps`, { steps: [{ kind: 'teleport' }] }), 400, 'steps.0.kind');
  });

  it('refuses NUL and lone surrogates in bodies, queries and paths, naming the field, on every store alike', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: 'c-nul', tool: '\u0000' }, 'tool'],
      ['POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'a\u0000b' }, 'content'],
      ['POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'lone \ud800 high' }, 'content'],
      ['POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'lone \udc00 low' }, 'content'],
      ['PUT', `/v1/sessions/${id}/memory/k`, { value: { nested: ['ok', 'x\u0000'] } }, 'value.nested.1'],
      ['PUT', `/v1/sessions/${id}/memory/k`, { value: { 'bad\u0000key': 1 } }, 'value'],
      ['POST', `/v1/sessions/${id}/steps`, { steps: [{ kind: 'memory', key: 'k\u0000', value: 1 }] }, 'steps.0.key'],
      ['POST', '/v1/sessions', { title: '\ud83d' }, 'title'],
      ['GET', '/v1/sessions?q=%00', undefined, 'q'],
      ['GET', '/v1/audit?actor=%00', undefined, 'actor'],
      ['GET', `/v1/tool-calls?sessionId=%00`, undefined, 'sessionId'],
      ['PUT', `/v1/sessions/${id}/memory/a%00b`, { value: 1 }, 'key'],
      ['PUT', `/v1/sessions/${id}/context-vars/%00`, { value: 1 }, 'name'],
      ['POST', `/v1/sessions/${id}/tool-calls/%00/succeed`, { output: 1 }, 'callId'],
    ];
    for (const [method, path, body, field] of cases) expectRefusal(await http(method, path, body), 400, field);
    // A well-formed pair (an emoji) is ordinary text.
    expect((await http('GET', `/v1/sessions?q=${encodeURIComponent('\ud83d\ude00')}`)).status).toBe(200);
  });

  it('refuses a NUL in a path before any interceptor reads it (an encryption policy makes the interceptor look the session up)', async () => {
    expect((await http('PUT', '/v1/encryption/memory-keys/city', { encrypted: true })).status).toBe(200);
    expectRefusal(await http('PUT', '/v1/sessions/a%00b/memory/city', { value: {} }), 400, 'id');
    expect((await http('PUT', '/v1/encryption/memory-keys/city', { encrypted: false })).status).toBe(200);
  });

  it('routes every id and name the API accepts, however long (Fastify stopped at 100 characters)', async () => {
    const longId = `s${'x'.repeat(127)}`;
    expect((await http('POST', '/v1/sessions', { sessionId: longId })).status).toBe(201);
    expect((await http('GET', `/v1/sessions/${longId}`)).status).toBe(200);
    const longKey = 'ключ-'.repeat(51).slice(0, 256);
    expect((await http('PUT', `/v1/sessions/${longId}/memory/${encodeURIComponent(longKey)}`, { value: 1 })).status).toBe(200);
    expect((await http('GET', `/v1/sessions/${longId}`)).body.memory).toEqual({ [longKey]: 1 });
    expectRefusal(await http('GET', `/v1/sessions/${'x'.repeat(129)}`), 400, 'id');
    expectRefusal(await http('PUT', `/v1/sessions/${longId}/memory/${'k'.repeat(257)}`, { value: 1 }), 400, 'name');
    positionBefore = await store.lastPosition(); // the writes above were meant to happen
  });

  it('refuses "." and ".." as ids: URL parsers drop them as dot-segments, so such a session could never be reached', async () => {
    for (const sessionId of ['.', '..']) {
      expectRefusal(await http('POST', '/v1/sessions', { sessionId }), 400, 'sessionId', /not "\." or "\.\." alone/);
      expectRefusal(await http('POST', '/v1/sessions/steps-of-dots/steps', { steps: [{ kind: 'tool-call', toolCallId: sessionId, tool: 't' }] }), 400);
    }
    // Dots inside an id are valid: such an id is routed and looked up (404), not refused (400).
    expect((await http('GET', '/v1/sessions/a...b')).status).toBe(404);
  });

  it('parses numbers in query parameters strictly and says what is wrong', async () => {
    const cases: [string, string, RegExp][] = [
      ['from=99999999999999999999', 'from', /from must be at most 9007199254740991/],
      ['from=1e308', 'from', /from must be a whole number/],
      ['from=abc', 'from', /from must be a whole number/],
      ['from=-1', 'from', /from must be at least 1/],
      ['from=1.5', 'from', /from must be a whole number/],
      ['from=', 'from', /from must be a whole number/],
      ['from=1&from=2', 'from', /from must be a whole number/],
      ['limit=0x10', 'limit', /limit must be a whole number/],
      ['limit=1001', 'limit', /limit must be at most 1000/],
    ];
    for (const [query, field, message] of cases) expectRefusal(await http('GET', `/v1/sessions/${id}/events?${query}`), 400, field, message);
    expectRefusal(await http('GET', `/v1/sessions/${id}/state?at=1e308`), 400, 'at', /at must be a whole number/);
    expectRefusal(await http('GET', `/v1/sessions/${id}/diff?from=1`), 400, 'to', /to is required/);
    expectRefusal(await http('GET', `/v1/sessions/${id}/context?maxTurns=99999999999999999999`), 400, 'maxTurns');
    const page = await http('GET', `/v1/sessions/${id}/events?from=9007199254740991`);
    expect(page.status).toBe(200);
    expect(page.body.events).toEqual([]);
  });

  it('says what is wrong with a body: a missing field is required, not too long', async () => {
    expectRefusal(await http('POST', `/v1/sessions/${id}/messages`, { role: 'user' }), 400, 'content', /content is required/);
    expectRefusal(await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 5 }), 400, 'content', /content must be text/);
    expectRefusal(await http('POST', `/v1/sessions/${id}/tool-calls/c1/fail`, {}), 400, 'error', /error is required/);
    expectRefusal(await http('POST', `/v1/sessions/${id}/undo`, { steps: 'two' }), 400, 'steps', /steps must be a whole number/);
    // Found by the fuzz suite: an array where one object belongs used to pass validation and fail with a 500.
    expectRefusal(
      await http('PUT', '/v1/tools/array-compensation', { kind: 'reversible', compensation: [] }),
      400,
      'compensation',
      /must be an object, not an array/,
    );
    const effect = { toolCallId: 'c-array', tool: 't', effect: { kind: 'none', retry: [] } };
    expectRefusal(await http('POST', `/v1/sessions/${id}/tool-calls`, effect), 400, 'effect.retry');
  });

  it('answers framework-level refusals in the documented shape', async () => {
    expectRefusal(await http('POST', '/v1/sessions/%FF/messages', { role: 'user', content: 'x' }), 400, undefined, /percent-encoding/);
    expectRefusal(await http('GET', '/v1/sessions/%E0%A4%A'), 400, undefined, /percent-encoding/);
    expectRefusal(await http('GET', '/v1/no-such-route'), 404);
    const wrongMethod = await http('PATCH', `/v1/sessions/${id}`, {});
    expectRefusal(wrongMethod, 405, undefined, /use GET/);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expectRefusal(await http('POST', `/v1/sessions/${id}/messages`, 'role=user', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
    expectRefusal(await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'x'.repeat(300 * 1024) }), 413);

    const auth = `Authorization: Bearer ${t.adminKey}\r\n`;
    const controlByte = await rawRequest(port, `GET /v1/sessions/${id} HTTP/1.1\r\nHost: x\r\n${auth}X-Odd: a\u0001b\r\n\r\n`);
    expect(controlByte.status).toBe(400);
    expect(controlByte.body.error).toMatchObject({ code: 'bad_header', details: [] });
    const nonAscii = await rawRequest(port, `GET /v1/sessions/${id} HTTP/1.1\r\nHost: x\r\n${auth}X-Odd: caf\u00e9\u00ff\r\n\r\n`);
    expect(nonAscii.status, JSON.stringify(nonAscii.body)).toBeLessThan(500);
    if (nonAscii.status >= 400) expect(nonAscii.body.error.code).toEqual(expect.any(String));
    const bigHeader = await rawRequest(port, `GET /v1/sessions/${id} HTTP/1.1\r\nHost: x\r\n${auth}X-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    expect(bigHeader.status).toBe(431);
    expect(bigHeader.body.error).toMatchObject({ code: 'headers_too_large', details: [] });
    const garbage = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toEqual(expect.any(String));
  });
});
