import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStreamId } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import type { Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { EVENT_STORE } from '../infrastructure/tokens';

/** One turn as single-step requests, and the same turn as one batch. */
const TURN = [
  {
    path: 'messages',
    method: 'POST',
    body: { role: 'user', content: 'Find a hotel in Lisbon.' },
    step: { kind: 'message', role: 'user', content: 'Find a hotel in Lisbon.' },
  },
  {
    path: 'tool-calls',
    method: 'POST',
    body: { toolCallId: 'c1', tool: 'search_hotels', input: { city: 'Lisbon' } },
    step: { kind: 'tool-call', toolCallId: 'c1', tool: 'search_hotels', input: { city: 'Lisbon' } },
  },
  {
    path: 'tool-calls/c1/succeed',
    method: 'POST',
    body: { output: { hotels: ['Alfama Inn'] } },
    step: { kind: 'tool-result', toolCallId: 'c1', output: { hotels: ['Alfama Inn'] } },
  },
  { path: 'messages', method: 'POST', body: { role: 'agent', content: 'Alfama Inn.' }, step: { kind: 'message', role: 'agent', content: 'Alfama Inn.' } },
  { path: 'memory/city', method: 'PUT', body: { value: 'Lisbon' }, step: { kind: 'memory', key: 'city', value: 'Lisbon' } },
  { path: 'context-vars/locale', method: 'PUT', body: { value: 'pt-PT' }, step: { kind: 'context-var', name: 'locale', value: 'pt-PT' } },
  { path: 'tasks', method: 'POST', body: { title: 'book it', taskId: 't1' }, step: { kind: 'task-push', title: 'book it', taskId: 't1' } },
  { path: 'checkpoints', method: 'POST', body: { label: 'after-search' }, step: { kind: 'checkpoint', label: 'after-search' } },
] as const;

describe.each(E2E_STORES)('POST /v1/sessions/:id/steps on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  let store: EventStore;
  let seq = 0;
  const newSession = async () => {
    const id = `batch-${++seq}-${Date.now()}`;
    expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    return id;
  };
  const version = (id: string) => store.streamVersion(sessionStreamId('default', id));
  /** The state as the API shows it, without what differs between two recordings of the same steps. */
  const comparable = async (id: string) => {
    const state = (await http('GET', `/v1/sessions/${id}`)).body;
    return JSON.parse(
      JSON.stringify({ ...state, sessionId: null, startedAt: null })
        .replace(/"(turnId|messageId)":"[^"]+"/g, '"$1":"*"')
        .replace(new RegExp(id, 'g'), '*'),
    );
  };

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp({ ...target.env, REWIND_SNAPSHOT_EVERY: '5' });
    http = t.http;
    store = t.app.get<EventStore>(EVENT_STORE);
  });
  afterAll(async () => {
    await t.close();
    await cleanup();
  });

  it('records a turn in one write that leaves the same state as the single-step requests', async () => {
    const single = await newSession();
    for (const s of TURN) expect((await http(s.method, `/v1/sessions/${single}/${s.path}`, s.body)).status).toBeLessThan(300);
    const batched = await newSession();
    const res = await http('POST', `/v1/sessions/${batched}/steps`, { steps: TURN.map((s) => s.step) });
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe(`"${1 + TURN.length}"`);
    expect(res.body.version).toBe(1 + TURN.length);
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual([
      'UserMessageReceived',
      'ToolCallStarted',
      'ToolCallSucceeded',
      'AgentMessageProduced',
      'MemoryWritten',
      'ContextVariableSet',
      'TaskPushed',
      'CheckpointCreated',
    ]);
    expect(await comparable(batched)).toEqual(await comparable(single));
    // Each step is its own timeline node, so undo still goes back one step at a time.
    const nodes = async (id: string) =>
      (await http('GET', `/v1/sessions/${id}/timeline`)).body.nodes.map((n: { version: number; parentVersion: number }) => [n.version, n.parentVersion]);
    expect(await nodes(batched)).toEqual(await nodes(single));
    expect((await nodes(batched)).length).toBeGreaterThanOrEqual(TURN.length);
    const events = (await http('GET', `/v1/sessions/${batched}/events`)).body.events as { metadata: { commandId: string } }[];
    expect(new Set(events.slice(1).map((e) => e.metadata.commandId)).size).toBe(1);
  });

  it('decides each step on the state the steps before it leave', async () => {
    const id = await newSession();
    const res = await http('POST', `/v1/sessions/${id}/steps`, {
      steps: [
        { kind: 'task-push', title: 'a', taskId: 'ta' },
        { kind: 'task-pop' },
        { kind: 'memory', key: 'k', value: 1 },
        { kind: 'memory-erase', key: 'k' },
        { kind: 'message', role: 'user', content: 'stop me', turnId: 'turn-1' },
        { kind: 'interrupt', turnId: 'turn-1', partialContent: 'sto' },
        { kind: 'tool-call', toolCallId: 'c9', tool: 'flaky' },
        { kind: 'tool-failure', toolCallId: 'c9', error: 'timeout', retryable: true },
      ],
    });
    expect(res.status).toBe(201);
    const state = (await http('GET', `/v1/sessions/${id}`)).body;
    expect(state.version).toBe(9);
    expect(JSON.stringify(state)).toContain('timeout');
    expect(JSON.stringify(state)).not.toContain('"ta"');
  });

  it('refuses the whole batch when one step is refused, names the step, and writes nothing', async () => {
    const id = await newSession();
    const res = await http('POST', `/v1/sessions/${id}/steps`, {
      steps: [
        { kind: 'message', role: 'user', content: 'hi' },
        { kind: 'tool-result', toolCallId: 'never-started', output: 1 },
      ],
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('tool_call_not_found');
    expect(res.body.error.message).toMatch(/^steps\[1\]: /);
    expect(res.body.error.details[0].field).toBe('steps.1');
    expect(await version(id)).toBe(1);

    const duplicateCall = await http('POST', `/v1/sessions/${id}/steps`, {
      steps: [
        { kind: 'tool-call', toolCallId: 'c1', tool: 'x' },
        { kind: 'tool-call', toolCallId: 'c1', tool: 'x' },
      ],
    });
    expect(duplicateCall.status).toBe(409);
    expect(duplicateCall.body.error.details[0].field).toMatch(/^steps\.1/);
    expect(await version(id)).toBe(1);
  });

  it('validates every step at the edge, field by field, and writes nothing', async () => {
    const id = await newSession();
    const cases: [unknown, string][] = [
      [{ steps: [] }, 'steps'],
      [{}, 'steps'],
      [{ steps: [{ kind: 'teleport' }] }, 'steps.0.kind'],
      [{ steps: [{ kind: 'message', role: 'user', content: 'x', extra: true }] }, 'steps.0.extra'],
      [
        {
          steps: [
            { kind: 'message', role: 'user', content: 'ok' },
            { kind: 'tool-result', toolCallId: 'bad id!', output: 1 },
          ],
        },
        'steps.1.toolCallId',
      ],
      [{ steps: [{ kind: 'memory', key: 'k' }] }, 'steps.0.value'],
      [{ steps: Array.from({ length: 1001 }, () => ({ kind: 'task-pop' })) }, 'steps'],
    ];
    for (const [body, field] of cases) {
      const res = await http('POST', `/v1/sessions/${id}/steps`, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await version(id)).toBe(1);
  });

  it('takes one Idempotency-Key and one If-Match for the whole batch', async () => {
    const id = await newSession();
    const steps = [
      { kind: 'message', role: 'user', content: 'once' },
      { kind: 'message', role: 'agent', content: 'only once' },
    ];
    const key = { 'Idempotency-Key': `k-${id}` };
    const first = await http('POST', `/v1/sessions/${id}/steps`, { steps }, key);
    const again = await http('POST', `/v1/sessions/${id}/steps`, { steps }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.duplicate).toBe(true);
    expect(again.body.events.map((e: { eventId: string }) => e.eventId)).toEqual(first.body.events.map((e: { eventId: string }) => e.eventId));
    const reused = await http('POST', `/v1/sessions/${id}/steps`, { steps: steps.slice(0, 1) }, key);
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    expect(await version(id)).toBe(3);

    const stale = await http('POST', `/v1/sessions/${id}/steps`, { steps }, { 'If-Match': '"2"' });
    expect(stale.status).toBe(409);
    expect(await version(id)).toBe(3);
    expect((await http('POST', `/v1/sessions/${id}/steps`, { steps }, { 'If-Match': '"3"' })).status).toBe(201);
    expect(await version(id)).toBe(5);
  });

  it('refuses a batch for a session that does not exist', async () => {
    const res = await http('POST', `/v1/sessions/no-such-${Date.now()}/steps`, {
      steps: [{ kind: 'message', role: 'user', content: 'x' }, { kind: 'task-pop' }],
    });
    expect(res.status).toBe(404);
  });
});
