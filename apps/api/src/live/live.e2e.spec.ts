import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe, type LiveEvent } from '@rewind/client';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

/** Collects events from an iterator until `until` says enough, leaving it open (a `for await` would close it). */
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

describe('live streams (server-sent events)', () => {
  let t: TestApp;
  let seq = 0;
  const newSession = async () => {
    const id = `live-${++seq}`;
    expect((await t.http('POST', '/v1/sessions', { sessionId: id, title: 'live' })).status).toBe(201);
    return id;
  };
  const say = (id: string, content: string) => t.http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content });

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("sends a session's changes as they are committed, and never their data", async () => {
    const id = await newSession();
    const controller = new AbortController();
    const stream = subscribe({ baseUrl: t.baseUrl, apiKey: t.adminKey, sessionId: id, signal: controller.signal });
    const first = await stream.next();
    expect(first.value).toEqual({ kind: 'ready', version: 1 });
    expect((await say(id, 'secret plan')).status).toBe(201);
    const seen = await take(stream, (s) => changes(s).length >= 1);
    controller.abort();
    expect(changes(seen).map((e) => [e.id, e.change.sessionId, e.change.version, e.change.type])).toEqual([['2', id, 2, 'UserMessageReceived']]);
    expect(JSON.stringify(seen)).not.toContain('secret plan');
  });

  it('resumes after Last-Event-ID with what was missed, in order, once', async () => {
    const id = await newSession();
    await say(id, 'one');
    await say(id, 'two');
    const controller = new AbortController();
    const stream = subscribe({ baseUrl: t.baseUrl, apiKey: t.adminKey, sessionId: id, lastEventId: '1', signal: controller.signal });
    const missed = await take(stream, (s) => changes(s).length >= 2);
    expect((await say(id, 'three')).status).toBe(201);
    const live = await take(stream, (s) => changes(s).length >= 1);
    controller.abort();
    expect(missed[0]).toEqual({ kind: 'ready', version: 1 });
    expect([...changes(missed), ...changes(live)].map((e) => e.change.version)).toEqual([2, 3, 4]);
  });

  it("follows every session of the tenant on the tenant's stream, ids being the session and version, and resumes from one", async () => {
    const controller = new AbortController();
    const stream = subscribe({ baseUrl: t.baseUrl, apiKey: t.adminKey, signal: controller.signal });
    const ready = (await stream.next()).value as LiveEvent;
    expect(ready).toEqual({ kind: 'ready' }); // no position in the whole log
    const a = await newSession();
    const b = await newSession();
    const seen = await take(stream, (s) => changes(s).length >= 2);
    controller.abort();
    const got = changes(seen);
    expect(got.map((e) => e.change.sessionId)).toEqual([a, b]);
    expect(got.map((e) => e.id)).toEqual([`${a}:1`, `${b}:1`]);
    expect(got.every((e) => !('position' in e.change))).toBe(true);

    await say(a, 'missed');
    const resumed = new AbortController();
    const again = subscribe({ baseUrl: t.baseUrl, apiKey: t.adminKey, lastEventId: `${b}:1`, signal: resumed.signal });
    const missed = await take(again, (s) => changes(s).length >= 1);
    resumed.abort();
    expect(missed[0]).toEqual({ kind: 'ready' });
    expect(changes(missed).map((e) => e.id)).toEqual([`${a}:2`]);
  });

  it('refuses a missing key, an unknown session and a bad id with the documented errors', async () => {
    const noKey = await fetch(`${t.baseUrl}/v1/stream`);
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    await expect(take(subscribe({ baseUrl: t.baseUrl, apiKey: t.adminKey, sessionId: 'nobody-here' }), (s) => s.length > 0)).rejects.toMatchObject({
      status: 404,
      code: 'session_not_found',
    });
    const bad = await t.http('GET', '/v1/sessions/..%2F/stream');
    expect(bad.status).toBe(400);
  });
});
