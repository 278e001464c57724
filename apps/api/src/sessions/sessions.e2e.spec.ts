import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStreamId } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import type { ApiKeyStore } from '@rewind/tenancy';
import { httpClient, type Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { API_KEY_STORE, EVENT_STORE } from '../infrastructure/tokens';

describe.each(E2E_STORES)('on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  let store: EventStore;
  let seq = 0;
  const newSession = async (title = 'test') => {
    const id = `s-${++seq}-${Date.now()}`;
    const res = await http('POST', '/v1/sessions', { sessionId: id, title });
    expect(res.status).toBe(201);
    return id;
  };

  /**
   * What a request could have written: the session's version and the tenant's streams.
   * (Not the global log position: on PostgreSQL it may lag while other suites' transactions run.)
   */
  const footprint = async (id: string) => [
    await store.streamVersion(sessionStreamId('default', id)),
    (await store.listStreams({ prefix: 'session:default:', limit: 100_000 })).length,
  ];

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp({ ...target.env, REWIND_MAX_BODY_BYTES: '4096', REWIND_SNAPSHOT_EVERY: '5' });
    http = t.http;
    store = t.app.get<EventStore>(EVENT_STORE);
  });
  afterAll(async () => {
    await t.close();
    await cleanup();
  });

  describe('recording steps and reading any past state', () => {
    it('records a whole agent session and reads it back at every version', async () => {
      const id = await newSession('Lisbon trip');
      const user = await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'Plan a trip to Lisbon' });
      expect(user.status).toBe(201);
      expect(user.headers.get('etag')).toBe('"2"');
      expect((await http('PUT', `/v1/sessions/${id}/memory/destination`, { value: 'Lisbon' })).status).toBe(200);
      expect((await http('PUT', `/v1/sessions/${id}/context-vars/locale`, { value: 'pt-PT' })).status).toBe(200);
      expect(
        (await http('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: 'c1', tool: 'search_flights', input: { to: 'LIS' }, effect: { kind: 'none' } }))
          .status,
      ).toBe(201);
      expect((await http('POST', `/v1/sessions/${id}/tool-calls/c1/succeed`, { output: { flights: ['TP123'] } })).status).toBe(200);
      expect((await http('POST', `/v1/sessions/${id}/tasks`, { title: 'find a hotel', taskId: 'task-1' })).status).toBe(201);
      expect((await http('POST', `/v1/sessions/${id}/messages`, { role: 'assistant', content: 'Found TP123.' })).status).toBe(201);
      expect((await http('DELETE', `/v1/sessions/${id}/tasks/top`)).status).toBe(200);
      expect((await http('DELETE', `/v1/sessions/${id}/memory/destination`)).status).toBe(200);

      const current = await http('GET', `/v1/sessions/${id}`);
      expect(current.status).toBe(200);
      expect(current.body).toMatchObject({
        sessionId: id,
        title: 'Lisbon trip',
        version: 10,
        head: 10,
        status: 'active',
        memory: {},
        contextVars: { locale: 'pt-PT' },
        tasks: [],
      });
      expect(current.body.toolCalls).toEqual([
        expect.objectContaining({ toolCallId: 'c1', status: 'succeeded', output: { flights: ['TP123'] }, effect: { kind: 'none' } }),
      ]);
      expect(current.body.conversation.turns[0]).toMatchObject({
        status: 'complete',
        messages: [{ role: 'user' }, { role: 'agent', content: 'Found TP123.' }],
      });

      const past = await http('GET', `/v1/sessions/${id}/state?at=3`);
      expect(past.body).toMatchObject({ version: 3, memory: { destination: 'Lisbon' }, contextVars: {}, toolCalls: [] });
      const withTask = await http('GET', `/v1/sessions/${id}/state?at=7`);
      expect(withTask.body.tasks).toEqual([expect.objectContaining({ taskId: 'task-1', title: 'find a hotel' })]);

      const events = await http('GET', `/v1/sessions/${id}/events?from=2&limit=3`);
      expect(events.body.events.map((e: { streamVersion: number }) => e.streamVersion)).toEqual([2, 3, 4]);
      expect(events.body.events[0]).toMatchObject({
        type: 'UserMessageReceived',
        parentVersion: 1,
        metadata: { tenantId: 'default', sessionId: id, actor: expect.stringMatching(/^key:/) },
      });
      expect(events.body.nextFrom).toBe(5);

      const diff = await http('GET', `/v1/sessions/${id}/diff?from=3&to=10`);
      expect(diff.body.changes).toEqual(
        expect.arrayContaining([
          { path: 'memory.destination', op: 'removed', from: 'Lisbon' },
          { path: 'contextVars.locale', op: 'added', to: 'pt-PT' },
        ]),
      );
      // The same changes one thing at a time, in words: every message of the turn, the call and its answer.
      const said = diff.body.items.map((i: { kind: string; summary: string }) => `${i.kind}: ${i.summary}`);
      expect(said).toEqual(
        expect.arrayContaining([
          "message: the agent said 'Found TP123.' (turn 1)",
          expect.stringMatching(/^tool_output: '.+' \(c1\) answered \{"flights":\["TP123"\]\}$/),
          "memory: memory 'destination' erased (was 'Lisbon')",
          "context_variable: context variable 'locale' set to 'pt-PT'",
        ]),
      );
      // A version past the end is named by the parameter that carried it.
      const badTo = await http('GET', `/v1/sessions/${id}/diff?from=3&to=99`);
      expect(badTo.status).toBe(404);
      expect(badTo.body.error.details).toEqual([{ field: 'to', message: expect.stringContaining('must be between 1 and') }]);
      const badFrom = await http('GET', `/v1/sessions/${id}/diff?from=99&to=3`);
      expect(badFrom.body.error.details).toEqual([{ field: 'from', message: expect.stringContaining('must be between 1 and') }]);
    });

    it('builds a sanitized LLM context: interrupted turns as seen, unfinished tool calls stripped, rolled-back steps gone', async () => {
      const id = await newSession();
      await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'first question', turnId: 't1' });
      await http('POST', `/v1/sessions/${id}/messages`, { role: 'agent', content: 'first answer', turnId: 't1' });
      await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'second question', turnId: 't2' });
      await http('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: 'dangling', tool: 'lookup', input: {} });
      const interrupted = await http('POST', `/v1/sessions/${id}/turns/t2/interrupt`, { partialContent: 'Here is what I found so f' });
      expect(interrupted.status).toBe(200);
      await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'a step that will be undone', turnId: 't3' });
      expect((await http('POST', `/v1/sessions/${id}/undo`, {})).status).toBe(200);

      const context = await http('GET', `/v1/sessions/${id}/context`);
      expect(context.status).toBe(200);
      expect(context.body.items.map((i: { content?: string }) => i.content)).toEqual([
        'first question',
        'first answer',
        'second question',
        'Here is what I found so f',
      ]);
      expect(context.body.items[3]).toMatchObject({ role: 'agent', interrupted: true });
      expect(context.body.strippedToolCalls).toEqual(['dangling']);
      const windowed = await http('GET', `/v1/sessions/${id}/context?maxTurns=1`);
      expect(windowed.body.items.map((i: { content?: string }) => i.content)).toEqual(['second question', 'Here is what I found so f']);
      const interruptedAgain = await http('POST', `/v1/sessions/${id}/turns/t2/interrupt`, { partialContent: 'x' });
      expect(interruptedAgain.status).toBe(409);
      expect(interruptedAgain.body.error.code).toBe('turn_not_open');
    });
  });

  describe('time travel: undo, redo, rollback, branches', () => {
    it('undoes, redoes, rolls back to a checkpoint and branches without losing the old branch', async () => {
      const id = await newSession();
      await http('PUT', `/v1/sessions/${id}/memory/city`, { value: 'Paris' }); // v2
      expect((await http('POST', `/v1/sessions/${id}/checkpoints`, { label: 'paris' })).status).toBe(201); // v3
      await http('PUT', `/v1/sessions/${id}/memory/hotel`, { value: 'Ritz' }); // v4
      await http('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: 'q', tool: 'search', input: 'x' }); // v5
      await http('POST', `/v1/sessions/${id}/tool-calls/q/succeed`, { output: 1 }); // v6

      const undo = await http('POST', `/v1/sessions/${id}/undo`, {});
      expect(undo.status).toBe(200);
      expect(undo.body).toMatchObject({ head: 4, version: 8 }); // start+result are one step
      const redo = await http('POST', `/v1/sessions/${id}/redo`, {});
      expect(redo.body).toMatchObject({ head: 6 });

      const back = await http('POST', `/v1/sessions/${id}/rollback`, { toCheckpoint: 'paris' });
      expect(back.body.head).toBe(2);
      expect((await http('GET', `/v1/sessions/${id}`)).body.memory).toEqual({ city: 'Paris' });

      const branch = await http('PUT', `/v1/sessions/${id}/memory/hotel`, { value: 'Bristol' });
      expect(branch.body.events[0].parentVersion).toBe(2);
      const noRedo = await http('POST', `/v1/sessions/${id}/redo`, {});
      expect(noRedo.status).toBe(409);
      expect(noRedo.body.error.code).toBe('nothing_to_redo');

      const timeline = await http('GET', `/v1/sessions/${id}/timeline`);
      expect(timeline.body.head).toBe(branch.body.version);
      expect(timeline.body.branches).toHaveLength(2);
      expect(timeline.body.branches.find((b: { tip: number }) => b.tip === 6)).toMatchObject({ forkedFrom: 2, containsHead: false });
      expect(timeline.body.checkpoints).toEqual([expect.objectContaining({ label: 'paris', version: 2 })]);
      // The abandoned branch stays readable forever.
      expect((await http('GET', `/v1/sessions/${id}/state?at=6`)).body.memory).toEqual({ city: 'Paris', hotel: 'Ritz' });

      const jump = await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: 6 });
      expect(jump.status).toBe(200);
      expect((await http('GET', `/v1/sessions/${id}`)).body.memory).toEqual({ city: 'Paris', hotel: 'Ritz' });
    });

    it('says in every write result which version is a timeline node one can return to', async () => {
      const id = await newSession();
      const message = await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'hi' });
      expect(message.body).toMatchObject({ version: 2, head: 2, stepVersion: 2, events: [{ type: 'UserMessageReceived', streamVersion: 2, step: true }] });
      // A checkpoint labels the head: a record (version 3) about node 2, not a node itself.
      const checkpoint = await http('POST', `/v1/sessions/${id}/checkpoints`, { label: 'greeted' });
      expect(checkpoint.status).toBe(201);
      expect(checkpoint.body).toMatchObject({ version: 3, head: 2, stepVersion: null, events: [{ type: 'CheckpointCreated', streamVersion: 3, step: false }] });
      expect(checkpoint.headers.get('etag')).toBe('"3"');
      const batch = await http('POST', `/v1/sessions/${id}/steps`, {
        steps: [
          { kind: 'message', role: 'agent', content: 'hello' },
          { kind: 'memory', key: 'k', value: 1 },
        ],
      });
      expect(batch.body).toMatchObject({ version: 5, head: 5, stepVersion: 5 });
      expect(batch.body.events.map((e: { step: boolean }) => e.step)).toEqual([true, true]);
      const undo = await http('POST', `/v1/sessions/${id}/undo`, {});
      // Nothing to compensate: the request and its completion are one write, both listed.
      expect(undo.body).toMatchObject({
        version: 7,
        head: 4,
        stepVersion: null,
        events: [
          { type: 'RollbackRequested', streamVersion: 6, step: false },
          { type: 'RollbackCompleted', streamVersion: 7, step: false },
        ],
      });
      // Every head a result names is a node one can read and return to.
      for (const node of [message.body.head, checkpoint.body.head, batch.body.head, undo.body.head]) {
        expect((await http('GET', `/v1/sessions/${id}/state?at=${node}`)).body.head).toBe(node);
      }
    });

    it('shows the plan of a head move across effects without doing anything (dry run)', async () => {
      const id = await newSession();
      await http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: 'book',
        tool: 'book_hotel',
        input: { city: 'Rome' },
        effect: { kind: 'reversible', compensation: { channel: 'http', target: 'http://127.0.0.1:9/cancel/{{output.id}}' } },
      });
      await http('POST', `/v1/sessions/${id}/tool-calls/book/succeed`, { output: { id: 'H1' } });
      const before = await footprint(id);
      const plan = await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: 1, dryRun: true });
      expect(plan.status).toBe(200);
      expect(plan.body.plan).toMatchObject({
        fromVersion: 3,
        toVersion: 1,
        toCompensate: [{ toolCallId: 'book', tool: 'book_hotel', startedVersion: 2, action: 'compensate' }],
      });
      // The target as the saga will send it (the output is known), not its template.
      expect(plan.body.plan.toCompensate[0].effect.compensation.target).toBe('http://127.0.0.1:9/cancel/H1');
      const undoPlan = await http('POST', `/v1/sessions/${id}/undo`, { dryRun: true });
      expect(undoPlan.body.plan.toCompensate).toHaveLength(1);
      expect(undoPlan.body.plan.effects[0].effect.compensation.target).toBe('http://127.0.0.1:9/cancel/H1');
      expect(await footprint(id)).toEqual(before);
      // The tool call keeps its template: only the dry run's answer is filled.
      expect((await http('GET', `/v1/sessions/${id}`)).body.toolCalls[0].effect.compensation.target).toBe('http://127.0.0.1:9/cancel/{{output.id}}');
      expect((await http('GET', `/v1/sessions/${id}`)).body).toMatchObject({ version: 3, head: 3, status: 'active' });
    });

    it('requires confirmation for irreversible calls (428) and acknowledgement to roll back past them', async () => {
      const id = await newSession();
      const unconfirmed = await http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: 'pay',
        tool: 'charge_card',
        input: { eur: 90 },
        effect: { kind: 'irreversible' },
      });
      expect(unconfirmed.status).toBe(428);
      expect(unconfirmed.body.error).toMatchObject({ code: 'confirmation_required', details: [{ field: 'confirmed' }] });
      expect((await http('GET', `/v1/sessions/${id}`)).body.version).toBe(1);

      await http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: 'pay',
        tool: 'charge_card',
        input: { eur: 90 },
        effect: { kind: 'irreversible' },
        confirmed: true,
      });
      await http('POST', `/v1/sessions/${id}/tool-calls/pay/succeed`, { output: { charged: true } });
      const refused = await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: 1 });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('irreversible_not_acknowledged');

      const acknowledged = await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: 1, acknowledgeIrreversible: true });
      expect(acknowledged.status).toBe(200);
      expect(acknowledged.body.events.map((e: { type: string }) => e.type)).toEqual(['RollbackRequested', 'CompensationSkipped', 'RollbackCompleted']);
      const skipped = (await http('GET', `/v1/sessions/${id}/events?from=5`)).body.events[0];
      expect(skipped.data).toMatchObject({
        toolCallId: 'pay',
        reason: expect.stringContaining('irreversible'),
        acknowledgedBy: expect.stringMatching(/^key:/),
      });
    });
  });

  describe('idempotency and optimistic concurrency', () => {
    it('answers a retried write with the same result and writes no second event', async () => {
      const id = await newSession();
      const headers = { 'Idempotency-Key': `msg-${id}` };
      const first = await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'hi' }, headers);
      const retry = await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'hi' }, headers);
      expect(retry.status).toBe(first.status);
      expect({ ...retry.body, duplicate: false }).toEqual(first.body);
      expect(retry.body.duplicate).toBe(true);
      expect((await http('GET', `/v1/sessions/${id}`)).body.version).toBe(2);

      const reused = await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'something else' }, headers);
      expect(reused.status).toBe(409);
      expect(reused.body.error.code).toBe('idempotency_key_reused');

      const startKey = { 'Idempotency-Key': `start-${id}` };
      const s1 = await http('POST', '/v1/sessions', { title: 'generated id' }, startKey);
      const s2 = await http('POST', '/v1/sessions', { title: 'generated id' }, startKey);
      expect(s2.body.sessionId).toBe(s1.body.sessionId);
    });

    it('honours If-Match: a stale version is a 409 naming the current one, and nothing is written', async () => {
      const id = await newSession();
      await http('PUT', `/v1/sessions/${id}/memory/a`, { value: 1 });
      const stale = await http('PUT', `/v1/sessions/${id}/memory/a`, { value: 2 }, { 'If-Match': '1' });
      expect(stale.status).toBe(409);
      expect(stale.body.error).toMatchObject({ code: 'version_conflict', details: [{ field: 'If-Match', currentVersion: 2 }] });
      const fresh = await http('PUT', `/v1/sessions/${id}/memory/a`, { value: 2 }, { 'If-Match': '"2"' });
      expect(fresh.status).toBe(200);
      expect((await http('PUT', `/v1/sessions/${id}/memory/a`, { value: 3 }, { 'If-Match': 'yesterday' })).status).toBe(400);
      expect((await http('GET', `/v1/sessions/${id}`)).body).toMatchObject({ version: 3, memory: { a: 2 } });
    });

    it('serializes concurrent writes to one session without losing any', async () => {
      const id = await newSession();
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => http('PUT', `/v1/sessions/${id}/memory/k${i}`, { value: i })));
      expect(results.every((r) => r.status === 200)).toBe(true);
      const state = (await http('GET', `/v1/sessions/${id}`)).body;
      expect(state.version).toBe(31);
      expect(Object.keys(state.memory)).toHaveLength(30);
    });
  });

  describe('tenancy', () => {
    it("needs an API key, and hides one tenant's sessions from another (404, not 403)", async () => {
      const id = await newSession();
      const keys = t.app.get<ApiKeyStore>(API_KEY_STORE);
      const { key } = await keys.create({ tenantId: 'acme', name: 'acme agent', role: 'agent' });
      const acme = httpClient(t.baseUrl, key);
      expect((await acme('GET', `/v1/sessions/${id}`)).status).toBe(404);
      expect((await acme('PUT', `/v1/sessions/${id}/memory/x`, { value: 1 })).status).toBe(404);
      expect((await acme('GET', '/v1/sessions')).body.items).toEqual([]);
      expect((await acme('POST', '/v1/sessions', { sessionId: id })).status).toBe(201); // same id, other tenant: another session
      expect((await http('GET', `/v1/sessions/${id}`)).body.version).toBe(1);

      const anonymous = httpClient(t.baseUrl);
      const noKey = await anonymous('GET', '/v1/sessions');
      expect(noKey.status).toBe(401);
      expect(noKey.body.error.code).toBe('unauthorized');
      expect((await httpClient(t.baseUrl, 'rwd_000000000000_nope')('GET', '/v1/sessions')).status).toBe(401);
      expect((await anonymous('GET', '/health')).status).toBe(200);
    });

    it("answers a write with If-Match to another tenant's (or no) session with the same 404, never a version conflict", async () => {
      const id = await newSession();
      await http('PUT', `/v1/sessions/${id}/memory/a`, { value: 1 });
      const keys = t.app.get<ApiKeyStore>(API_KEY_STORE);
      const { key } = await keys.create({ tenantId: `intruder${Date.now()}`, name: 'intruder', role: 'agent' });
      const intruder = httpClient(t.baseUrl, key);
      const before = await footprint(id);
      for (const ifMatch of ['2', '"2"', '7']) {
        for (const [method, path, body] of [
          ['PUT', `/v1/sessions/${id}/memory/a`, { value: 2 }],
          ['POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'hi' }],
          ['POST', `/v1/sessions/${id}/checkpoints`, { label: 'mine' }],
          ['POST', `/v1/sessions/${id}/undo`, {}],
        ] as const) {
          const res = await intruder(method, path, body, { 'If-Match': ifMatch });
          expect({ path, ifMatch, status: res.status, code: res.body.error?.code }).toEqual({ path, ifMatch, status: 404, code: 'session_not_found' });
        }
        const nobody = await http('PUT', `/v1/sessions/nobody-${id}/memory/a`, { value: 2 }, { 'If-Match': ifMatch });
        expect([nobody.status, nobody.body.error.code]).toEqual([404, 'session_not_found']);
      }
      expect(await footprint(id)).toEqual(before);
    });

    it("lists a tenant's sessions with cursor paging", async () => {
      const keys = t.app.get<ApiKeyStore>(API_KEY_STORE);
      const { key } = await keys.create({ tenantId: `pager${Date.now()}`, name: 'pager', role: 'agent' });
      const client = httpClient(t.baseUrl, key);
      for (const s of ['a', 'b', 'c']) await client('POST', '/v1/sessions', { sessionId: s });
      const page1 = await client('GET', '/v1/sessions?limit=2');
      expect(page1.body.items.map((i: { sessionId: string }) => i.sessionId)).toEqual(['a', 'b']);
      const page2 = await client('GET', `/v1/sessions?limit=2&cursor=${page1.body.nextCursor}`);
      expect(page2.body).toMatchObject({ items: [{ sessionId: 'c', version: 1 }], nextCursor: null });
    });
  });

  describe('bad input gets a clear error and persists nothing', () => {
    const cases: [string, string, string, unknown, number, string][] = [
      ['unknown role', 'POST', 'messages', { role: 'robot', content: 'x' }, 400, 'role'],
      ['missing content', 'POST', 'messages', { role: 'user' }, 400, 'content'],
      ['unknown field', 'POST', 'messages', { role: 'user', content: 'x', colour: 'red' }, 400, 'colour'],
      ['bad effect kind', 'POST', 'tool-calls', { toolCallId: 'c', tool: 't', effect: { kind: 'maybe' } }, 400, 'effect.kind'],
      ['bad tool call id', 'POST', 'tool-calls', { toolCallId: 'has space', tool: 't' }, 400, 'toolCallId'],
      ['memory without value', 'PUT', 'memory/k', {}, 400, 'value'],
      ['negative rollback target', 'POST', 'rollback', { toVersion: -1 }, 400, 'toVersion'],
      ['both rollback targets', 'POST', 'rollback', { toVersion: 1, toCheckpoint: 'x' }, 400, 'toVersion'],
      ['unknown tool call', 'POST', 'tool-calls/ghost/succeed', { output: 1 }, 404, ''],
      ['unknown checkpoint', 'POST', 'rollback', { toCheckpoint: 'nowhere' }, 404, 'toCheckpoint'],
      ['rollback beyond the end', 'POST', 'rollback', { toVersion: 999 }, 404, 'toVersion'],
      ['pop an empty task stack', 'DELETE', 'tasks/top', undefined, 409, ''],
      ['erase a missing key', 'DELETE', 'memory/missing', undefined, 404, ''],
    ];
    it.each(cases)('%s: %s %s', async (_name, method, route, body, status, field) => {
      const id = await newSession();
      const before = await footprint(id);
      const res = await http(method, `/v1/sessions/${id}/${route}`, body);
      expect(res.status).toBe(status);
      expect(res.body.error.code).toEqual(expect.any(String));
      expect(res.body.error.message.length).toBeGreaterThan(10);
      if (field) expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await footprint(id)).toEqual(before);
    });

    it('answers 413 above the body limit, 415 for non-JSON, 400 for broken JSON, 404 for unknown sessions', async () => {
      const id = await newSession();
      const before = await footprint(id);
      const big = await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'x'.repeat(5000) });
      expect(big.status).toBe(413);
      expect(big.body.error.code).toBe('payload_too_large');
      const text = await http('POST', `/v1/sessions/${id}/messages`, 'hello', { 'content-type': 'text/plain' });
      expect(text.status).toBe(415);
      const broken = await http('POST', `/v1/sessions/${id}/messages`, '{"role":', { 'content-type': 'application/json' });
      expect(broken.status).toBe(400);
      expect(broken.body.error.code).toBe('invalid_json');
      const missing = await http('POST', '/v1/sessions/nobody/messages', { role: 'user', content: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('session_not_found');
      expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(409);
      expect(await footprint(id)).toEqual(before);
    });

    it('exposes Prometheus metrics without tenant data', async () => {
      const id = await newSession();
      await http('GET', `/v1/sessions/${id}`);
      const res = await fetch(`${t.baseUrl}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/rewind_http_request_duration_seconds_count\{method="GET",route="\/v1\/sessions\/:id",status="200"\} [1-9]/);
      expect(text).toMatch(/rewind_events_appended_total\{type="SessionStarted"\} [1-9]/);
      expect(text).toMatch(/rewind_store_last_position [1-9]/);
      expect(text).not.toContain(id);
    });

    it('serves OpenAPI generated from the DTOs', async () => {
      const doc = await http('GET', '/docs/openapi.json');
      expect(doc.status).toBe(200);
      expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/v1/sessions', '/v1/sessions/{id}/rollback', '/v1/sessions/{id}/tool-calls']));
      expect(doc.body.components.schemas.StartToolCallDto.required).toEqual(expect.arrayContaining(['toolCallId', 'tool']));
    });
  });
});
