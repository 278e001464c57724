import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

describe.each(E2E_STORES)("the agent's thoughts over HTTP on the %s store", (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  let seq = 0;
  const newSession = async () => {
    const id = `thoughts-${++seq}-${Date.now()}`;
    expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    return id;
  };
  const kinds = async (path: string) => ((await http('GET', path)).body.items as { kind: string }[]).map((i) => i.kind);

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp({ ...target.env, REWIND_SNAPSHOT_EVERY: '3' });
    http = t.http;
  });
  afterAll(async () => {
    await t.close();
    await cleanup();
  });

  it('records a thought (single route and batch) as a timeline step, in the state, out of the context unless asked for', async () => {
    const id = await newSession();
    expect((await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'Find a hotel in Lisbon', turnId: 'turn-1' })).status).toBe(201);
    const single = await http('POST', `/v1/sessions/${id}/thoughts`, { content: 'May is busy: search first.', steps: ['dates: May', 'search hotels'] });
    expect(single.status).toBe(201);
    expect(single.body.events.map((e: { type: string }) => e.type)).toEqual(['AgentThoughtRecorded']);
    const batch = await http('POST', `/v1/sessions/${id}/steps`, {
      steps: [
        { kind: 'thought', content: 'Alfama is closest to the river.' },
        { kind: 'message', role: 'agent', content: 'Alfama Inn has rooms.' },
      ],
    });
    expect(batch.status).toBe(201);

    const state = (await http('GET', `/v1/sessions/${id}`)).body;
    expect(
      state.thoughts.map((th: { content: string; steps: string[]; turnId: string; version: number }) => [th.content, th.steps, th.turnId, th.version]),
    ).toEqual([
      ['May is busy: search first.', ['dates: May', 'search hotels'], 'turn-1', 3],
      ['Alfama is closest to the river.', [], 'turn-1', 4],
    ]);
    const timeline = (await http('GET', `/v1/sessions/${id}/timeline`)).body;
    expect(timeline.nodes.find((n: { version: number }) => n.version === 3)).toMatchObject({
      type: 'AgentThoughtRecorded',
      summary: 'May is busy: search first.',
      parentVersion: 2,
    });

    expect(await kinds(`/v1/sessions/${id}/context`)).toEqual(['message', 'message']);
    expect(await kinds(`/v1/sessions/${id}/context?includeThoughts=false`)).toEqual(['message', 'message']);
    expect(await kinds(`/v1/sessions/${id}/context?includeThoughts=true`)).toEqual(['message', 'thought', 'thought', 'message']);
    // As of a version before the thoughts, there are none to include.
    expect(await kinds(`/v1/sessions/${id}/context?includeThoughts=true&at=2`)).toEqual(['message']);
    // A windowed state keeps the thoughts of the turns it shows.
    expect((await http('GET', `/v1/sessions/${id}/state?turns=last:1`)).body.thoughts).toHaveLength(2);
  });

  it('a thought belongs to its branch: undone, it leaves the state', async () => {
    const id = await newSession();
    await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'hi there, plan my trip' });
    await http('POST', `/v1/sessions/${id}/thoughts`, { content: 'a trip: ask where to' });
    expect((await http('POST', `/v1/sessions/${id}/undo`, {})).status).toBe(200);
    expect((await http('GET', `/v1/sessions/${id}`)).body.thoughts).toEqual([]);
  });

  it('takes steps: null as no steps, on the single route and in a batch (the fuzzer found a 500)', async () => {
    const id = await newSession();
    expect((await http('POST', `/v1/sessions/${id}/thoughts`, { content: 'x', steps: null })).status).toBe(201);
    expect((await http('POST', `/v1/sessions/${id}/steps`, { steps: [{ kind: 'thought', content: 'y', steps: null }] })).status).toBe(201);
    expect((await http('GET', `/v1/sessions/${id}`)).body.version).toBe(3);
  });

  it('refuses bad thoughts in the documented error shape and writes nothing', async () => {
    const id = await newSession();
    const cases: [unknown, number, string][] = [
      [{}, 400, 'content'],
      [{ content: 42 }, 400, 'content'],
      [{ content: 'x', steps: 'not a list' }, 400, 'steps'],
      [{ content: 'x', steps: [1, 2] }, 400, 'steps'],
      [{ content: '', steps: [] }, 400, 'content'],
      [{ content: 'x', turnId: 'no-such-turn' }, 404, 'turnId'],
      [{ content: 'x', unknown: true }, 400, 'unknown'],
    ];
    for (const [body, status, field] of cases) {
      const res = await http('POST', `/v1/sessions/${id}/thoughts`, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.code).toMatch(/^[a-z_]+$/);
      expect(JSON.stringify(res.body.error.details ?? []) + res.body.error.message).toContain(field);
    }
    expect((await http('GET', `/v1/sessions/${id}/context?includeThoughts=yes`)).status).toBe(400);
    expect((await http('GET', `/v1/sessions/${id}`)).body.version).toBe(1);
  });
});
