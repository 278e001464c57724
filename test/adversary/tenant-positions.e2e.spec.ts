import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe, type LiveEvent } from '@rewind/client';
import { httpClient, type Http } from '../support/http-client';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, items 6 and 8: positions in the whole log, in the answers a tenant reads, let it
 * count every other tenant's writes (the gap between two of its own events is everyone's
 * volume in between; /health told anyone the total). Answers now carry only what is the
 * tenant's own: session versions, and `<session id>:<version>` as the tenant stream's ids.
 */
async function take(events: AsyncGenerator<LiveEvent>, until: (seen: LiveEvent[]) => boolean): Promise<LiveEvent[]> {
  const seen: LiveEvent[] = [];
  while (!until(seen)) {
    const next = await events.next();
    if (next.done) break;
    seen.push(next.value);
  }
  return seen;
}
const changes = (events: LiveEvent[]) => events.flatMap((e) => (e.kind === 'change' ? [e] : []));

describe.each(E2E_STORES)("positions a tenant sees do not reveal other tenants' volume, on the %s store", (storeName) => {
  let t: TestApp;
  let cleanup: () => Promise<void> = async () => undefined;
  let mine: Http;
  let myKey: string;
  let busy: Http;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp({ ...store.env, REWIND_MEMORY: 'off' });
    myKey = (await t.http('POST', '/v1/keys', { name: 'me', scopes: ['write', 'read'], tenantId: 'watcher' })).body.key;
    mine = httpClient(t.baseUrl, myKey);
    busy = httpClient(t.baseUrl, (await t.http('POST', '/v1/keys', { name: 'busy', scopes: ['write', 'read'], tenantId: 'busy' })).body.key);
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
  });

  const othersWrite = async (count: number) => {
    const id = `busy-${Math.random().toString(36).slice(2)}`;
    expect((await busy('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    for (let i = 1; i < count; i++) expect((await busy('PUT', `/v1/sessions/${id}/memory/k`, { value: i })).status).toBe(200);
  };

  it('no position in the whole log in event answers or write results', async () => {
    const started = await mine('POST', '/v1/sessions', { sessionId: 'mine' });
    await othersWrite(20);
    const said = await mine('POST', '/v1/sessions/mine/messages', { role: 'user', content: 'hello' });
    for (const answer of [
      started.body,
      said.body,
      (await mine('GET', '/v1/sessions/mine/events')).body,
      (await mine('GET', '/v1/sessions/mine/timeline')).body,
    ]) {
      expect(JSON.stringify(answer)).not.toMatch(/position/i);
    }
    const events = (await mine('GET', '/v1/sessions/mine/events')).body.events as { streamVersion: number }[];
    expect(events.map((e) => e.streamVersion)).toEqual([1, 2]); // their order is the session's own
  });

  it('/health tells no one the log position', async () => {
    const anonymous = await fetch(`${t.baseUrl}/health`);
    expect(anonymous.status).toBe(200);
    const body = (await anonymous.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'ok' });
    expect(JSON.stringify(body)).not.toMatch(/position/i);
    const withTenantKey = await fetch(`${t.baseUrl}/health`, { headers: { authorization: `Bearer ${myKey}` } });
    expect(JSON.stringify(await withTenantKey.json())).not.toMatch(/position/i);
  });

  it("the tenant stream's ids, ready and changes carry no log position, and a resume from its ids works", async () => {
    expect((await mine('POST', '/v1/sessions', { sessionId: 'watched' })).status).toBe(201);
    const controller = new AbortController();
    const stream = subscribe({ baseUrl: t.baseUrl, apiKey: myKey, signal: controller.signal });
    const ready = (await stream.next()).value as LiveEvent;
    expect(ready).toEqual({ kind: 'ready' });
    expect((await mine('PUT', '/v1/sessions/watched/memory/a', { value: 1 })).status).toBe(200);
    await othersWrite(15);
    expect((await mine('PUT', '/v1/sessions/watched/memory/b', { value: 2 })).status).toBe(200);
    const seen = changes(await take(stream, (s) => changes(s).length >= 2));
    controller.abort();
    expect(seen.map((e) => e.id)).toEqual(['watched:2', 'watched:3']);
    expect(seen.map((e) => Object.keys(e.change).sort())).toEqual([
      ['occurredAt', 'sessionId', 'type', 'version'],
      ['occurredAt', 'sessionId', 'type', 'version'],
    ]);

    // A numeric Last-Event-ID (a log position an older version gave, or a probe) is not this stream's: reset, nothing replayed.
    const probe = new AbortController();
    const probed = await take(subscribe({ baseUrl: t.baseUrl, apiKey: myKey, lastEventId: '1', signal: probe.signal }), (s) => s.length >= 1);
    probe.abort();
    expect(probed).toEqual([{ kind: 'reset' }]);
    // Another tenant's session and version is not this tenant's id either: reset, nothing of theirs.
    expect((await busy('POST', '/v1/sessions', { sessionId: 'theirs' })).status).toBe(201);
    const foreign = new AbortController();
    const other = await take(subscribe({ baseUrl: t.baseUrl, apiKey: myKey, lastEventId: 'theirs:1', signal: foreign.signal }), (s) => s.length >= 1);
    foreign.abort();
    expect(other).toEqual([{ kind: 'reset' }]);
    // And this tenant's own id resumes.
    const own = new AbortController();
    const resumed = await take(subscribe({ baseUrl: t.baseUrl, apiKey: myKey, lastEventId: 'watched:2', signal: own.signal }), (s) => changes(s).length >= 1);
    own.abort();
    expect(resumed[0]).toEqual({ kind: 'ready' });
    expect(changes(resumed).map((e) => e.id)).toEqual(['watched:3']);
  });
});
