import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TravelService } from '@rewind/demo';
import type { Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

describe.each(E2E_STORES)('fork from the past over HTTP on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  let travel: TravelService;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp(store.env);
    http = t.http;
    travel = new TravelService();
    await travel.start();
    const res = await http('PUT', '/v1/tools/book_hotels', {
      kind: 'reversible',
      compensation: { channel: 'http', target: `${travel.url}/hotels/{{output.bookingId}}/cancel`, payload: { reason: 'forked' } },
      retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000 },
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await travel.stop();
    await cleanup();
  });

  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await http(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  /** A trip: a question, a diet remembered, then a hotel booked through the real travel service. */
  async function trip() {
    const id = `fork-${randomUUID().slice(0, 8)}`;
    const s = `/v1/sessions/${id}`;
    await ok('POST', '/v1/sessions', { sessionId: id, title: 'Lisbon' });
    const asked = (await ok('POST', `${s}/messages`, { role: 'user', content: 'A weekend in Lisbon' })).version as number;
    await ok('PUT', `${s}/memory/diet`, { value: 'vegan' });
    await ok('POST', `${s}/tool-calls`, { toolCallId: 'h1', tool: 'book_hotels', input: { city: 'Lisbon' } });
    const booked = (await (
      await fetch(`${travel.url}/hotels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"city":"Lisbon"}' })
    ).json()) as {
      bookingId: string;
    };
    await ok('POST', `${s}/tool-calls/h1/succeed`, { output: booked });
    return { id, s, asked, bookingId: booked.bookingId };
  }

  it('shows the plan first, then compensates, moves the head and records the new steps as a named branch, once', async () => {
    const { id, s, asked, bookingId } = await trip();
    const before = (await ok('GET', s)).version as number;
    const body = {
      atVersion: asked,
      steps: [
        { kind: 'message', role: 'user', content: 'Porto instead, please' },
        { kind: 'memory', key: 'diet', value: 'vegetarian' },
      ],
      branchName: 'Porto instead',
    };
    const plan = await ok('POST', `${s}/fork`, { ...body, dryRun: true });
    expect(plan).toMatchObject({
      outcome: 'dry_run',
      plan: { toVersion: asked, effects: [expect.objectContaining({ toolCallId: 'h1', action: 'compensate' })] },
    });
    expect((await ok('GET', s)).version).toBe(before); // a dry run writes nothing

    const forked = await http('POST', `${s}/fork`, { ...body, waitMs: 10_000 }, { 'Idempotency-Key': `fork-${id}` });
    expect(forked.status, JSON.stringify(forked.body)).toBe(200);
    expect(forked.body.rollback.status).toBe('completed');
    expect(travel.bookings.get(bookingId)!.status).toBe('cancelled');
    const state = await ok('GET', s);
    expect(state.memory).toEqual({ diet: 'vegetarian' });
    expect(state.conversation.turns.map((turn: { messages: { content: string }[] }) => turn.messages.map((m) => m.content))).toEqual([
      ['A weekend in Lisbon'],
      ['Porto instead, please'],
    ]);
    expect(state.toolCalls).toEqual([]);
    const timeline = await ok('GET', `${s}/timeline`);
    const headBranch = timeline.branches.find((b: { containsHead: boolean }) => b.containsHead);
    expect(headBranch).toMatchObject({ name: 'Porto instead', forkedFrom: asked });
    expect(timeline.branches.filter((b: { name: string | null }) => b.name === null)).toHaveLength(1); // the old branch, kept
    const firstNew = timeline.nodes.find((n: { type: string; parentVersion: number }) => n.type === 'UserMessageReceived' && n.parentVersion === asked);
    expect(firstNew).toBeDefined();

    // The same key again: the same answer, nothing written twice.
    const again = await http('POST', `${s}/fork`, { ...body, waitMs: 10_000 }, { 'Idempotency-Key': `fork-${id}` });
    expect(again.status).toBe(200);
    expect((await ok('GET', s)).version).toBe(state.version);
    // Renaming the branch by its first step.
    await ok('POST', `${s}/branch-names`, { version: firstNew.version, name: 'Porto' });
    expect((await ok('GET', `${s}/timeline`)).branches.find((b: { containsHead: boolean }) => b.containsHead).name).toBe('Porto');
  });

  it('a fork with nothing to compensate is one write: head move and steps together', async () => {
    const id = `fork-${randomUUID().slice(0, 8)}`;
    const s = `/v1/sessions/${id}`;
    await ok('POST', '/v1/sessions', { sessionId: id });
    const asked = (await ok('POST', `${s}/messages`, { role: 'user', content: 'hello' })).version as number;
    await ok('PUT', `${s}/context-vars/locale`, { value: 'en' });
    const forked = await ok('POST', `${s}/fork`, { atVersion: asked, steps: [{ kind: 'context-var', name: 'locale', value: 'pt' }] });
    expect(forked.events.map((e: { type: string }) => e.type)).toEqual(['RollbackRequested', 'RollbackCompleted', 'ContextVariableSet']);
    expect((await ok('GET', s)).contextVars).toEqual({ locale: 'pt' });
  });

  it('refuses bad forks in the documented shape, before anything moves', async () => {
    const { s, asked } = await trip();
    const version = (await ok('GET', s)).version;
    const cases: [unknown, number, string, string][] = [
      [{ steps: [{ kind: 'message', role: 'user', content: 'x' }] }, 400, 'validation_failed', 'atVersion'],
      [{ atVersion: asked }, 400, 'validation_failed', 'steps'],
      [{ atVersion: asked, steps: [] }, 400, 'validation_failed', 'steps'],
      [{ atVersion: asked, steps: [{ kind: 'tool-call', toolCallId: 'x', tool: 't' }] }, 400, 'validation_failed', 'steps.0'],
      [{ atVersion: asked, steps: [{ kind: 'memory-erase', key: 'diet' }] }, 404, 'memory_key_not_found', 'steps.0'],
      [{ atVersion: asked, steps: [{ kind: 'task-pop' }], branchName: '' }, 400, 'validation_failed', 'branchName'],
      [{ atVersion: 999, steps: [{ kind: 'task-push', title: 'x' }] }, 404, 'version_not_found', 'toVersion'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await http('POST', `${s}/fork`, body);
      expect(res.status, JSON.stringify([body, res.body])).toBe(status);
      expect(res.body.error.code).toBe(code);
      expect(JSON.stringify(res.body.error)).toContain(field);
    }
    expect((await http('POST', `${s}/branch-names`, { version: 999, name: 'x' })).status).toBe(404);
    expect((await ok('GET', s)).version).toBe(version);
  });
});
