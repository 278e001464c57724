import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe, type LiveEvent } from '@rewind/client';
import { httpClient, type Http } from '../support/http-client';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, items 6 and 8: positions in the whole log, in the answers a tenant reads, let it
 * count every other tenant's writes (the gap between two of its own events is everyone's
 * volume in between; /health told anyone the total). Answers now carry only what is the
 * tenant's own: session versions, `<session id>:<version>` as the tenant stream's ids, and the
 * page's last event id as the audit log's cursor.
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
  let myAudit: Http;
  let busy: Http;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp({ ...store.env, REWIND_MEMORY: 'off' });
    myKey = (await t.http('POST', '/v1/keys', { name: 'me', scopes: ['write', 'read'], tenantId: 'watcher' })).body.key;
    mine = httpClient(t.baseUrl, myKey);
    myAudit = httpClient(t.baseUrl, (await t.http('POST', '/v1/keys', { name: 'my auditor', scopes: ['audit'], tenantId: 'watcher' })).body.key);
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

  it("the audit log's entries and cursors do not change with other tenants' volume, and another tenant's event continues nothing", async () => {
    type Entry = Record<string, unknown> & { eventId: string };
    /** One session of four events, another tenant writing `between` events before each; its audit pages, both orders. */
    const recordAndRead = async (sessionId: string, between: number) => {
      expect((await mine('POST', '/v1/sessions', { sessionId })).status).toBe(201);
      for (let i = 1; i < 4; i++) {
        if (between) await othersWrite(between);
        expect((await mine('PUT', `/v1/sessions/${sessionId}/memory/k`, { value: i })).status).toBe(200);
      }
      const pages: { items: Entry[]; nextCursor: string | null }[] = [];
      for (const order of ['asc', 'desc']) {
        let cursor: string | null = null;
        do {
          const res = await myAudit('GET', `/v1/audit?sessionId=${sessionId}&order=${order}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          pages.push(res.body);
          cursor = res.body.nextCursor;
        } while (cursor);
      }
      // What is the tenant's own and says nothing of volume (ids, times) is named by its place in the session.
      const ids = pages.slice(0, 2).flatMap((p) => p.items.map((e) => e.eventId));
      const own = (value: unknown) => (typeof value === 'string' && ids.includes(value) ? `event ${ids.indexOf(value)}` : value);
      const readable = (cursor: string | null) => {
        if (cursor === null) return null;
        try {
          return (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]).map(own);
        } catch {
          return cursor; // opaque
        }
      };
      return pages.map((p) => ({
        items: p.items.map((e) => ({
          ...e,
          eventId: own(e.eventId),
          sessionId: 'S',
          streamId: String(e.streamId).replace(sessionId, 'S'),
          occurredAt: 'T',
          commandId: 'C',
          correlationId: 'C',
          causationId: e.causationId === null ? null : 'C',
        })),
        nextCursor: readable(p.nextCursor),
      }));
    };
    const quiet = await recordAndRead('audited-quiet', 0);
    const busyLog = await recordAndRead('audited-busy', 8);
    expect(quiet.length).toBe(4); // two pages each way
    expect(busyLog).toEqual(quiet);
    expect(JSON.stringify(busyLog)).not.toMatch(/position/i);

    // Another tenant's event id as a cursor continues nothing of theirs, nor of this tenant's.
    const theirs = (await busy('GET', '/v1/sessions')).body.items[0] as { sessionId: string };
    const busyAuditor = httpClient(t.baseUrl, (await t.http('POST', '/v1/keys', { name: 'busy auditor', scopes: ['audit'], tenantId: 'busy' })).body.key);
    const theirPage = (await busyAuditor('GET', `/v1/audit?sessionId=${theirs.sessionId}&limit=1`)).body as { nextCursor: string };
    const probed = await myAudit('GET', `/v1/audit?limit=2&cursor=${theirPage.nextCursor}`);
    expect(probed.status).toBe(400);
    expect(probed.body.error.code).toBe('invalid_cursor');
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
