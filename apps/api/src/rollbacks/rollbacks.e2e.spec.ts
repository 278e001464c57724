import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageBus } from '@rewind/messaging';
import { CompensationError, InlineCompensationChannel } from '@rewind/sagas';
import type { Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { TravelService } from '@rewind/demo';
import { MESSAGE_BUS } from '../infrastructure/tokens';

describe.each(E2E_STORES)('on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  let travel: TravelService;
  const fastRetry = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000 };

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp(store.env);
    http = t.http;
    travel = new TravelService();
    await travel.start();
    for (const kind of ['flights', 'hotels']) {
      const res = await http('PUT', `/v1/tools/book_${kind}`, {
        kind: 'reversible',
        compensation: {
          channel: 'http',
          target: `${travel.url}/${kind}/{{output.bookingId}}/cancel`,
          payload: { reason: 'rolled back by {{input.requestedBy}}' },
        },
        retry: fastRetry,
      });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => {
    await t.close();
    await travel.stop();
    await cleanup();
  });

  const session = async () => {
    const id = `trip-${randomUUID().slice(0, 8)}`;
    expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    return id;
  };

  /** The agent runtime's side: declare the call, do it against the real service, record the result. */
  async function book(id: string, kind: 'flights' | 'hotels', callId: string, details: Record<string, unknown>) {
    const started = await http('POST', `/v1/sessions/${id}/tool-calls`, {
      toolCallId: callId,
      tool: `book_${kind}`,
      input: { ...details, requestedBy: 'agent' },
    });
    expect(started.status).toBe(201);
    const res = await fetch(`${travel.url}/${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(details) });
    const output = (await res.json()) as { bookingId: string };
    expect((await http('POST', `/v1/sessions/${id}/tool-calls/${callId}/succeed`, { output })).status).toBe(200);
    return output.bookingId as string;
  }

  const rollbackOf = async (rollbackId: string) => (await http('GET', `/v1/rollbacks/${encodeURIComponent(rollbackId)}`)).body;

  describe('the rollback saga undoes side effects', () => {
    it('undo after flight and hotel: the saga cancels the hotel, keeps the flight, and the old branch stays readable', async () => {
      const id = await session();
      const flight = await book(id, 'flights', 'f1', { to: 'LIS' });
      await http('PUT', `/v1/sessions/${id}/memory/flight`, { value: flight });
      const hotel = await book(id, 'hotels', 'h1', { city: 'Lisbon' }); // v5, v6
      const undo = await http('POST', `/v1/sessions/${id}/undo`, { waitMs: 5000 });
      expect(undo.status).toBe(200);
      expect(undo.body.rollback).toMatchObject({
        status: 'completed',
        kind: 'undo',
        toVersion: 4,
        effects: [{ toolCallId: 'h1', status: 'compensated', attempts: 1 }],
      });
      expect(undo.headers.get('location')).toBe(`/v1/rollbacks/${undo.body.rollbackId}`);
      // The answer lists every event up to its version: the request, the saga's outcome, the completion.
      expect(undo.body).toMatchObject({ version: 9, head: 4, stepVersion: null });
      expect(undo.headers.get('etag')).toBe('"9"');
      expect(undo.body.events.map((e: { type: string; streamVersion: number; step: boolean }) => [e.type, e.streamVersion, e.step])).toEqual([
        ['RollbackRequested', 7, false],
        ['CompensationApplied', 8, false],
        ['RollbackCompleted', 9, false],
      ]);
      expect(travel.bookings.get(hotel)!.status).toBe('cancelled');
      expect(travel.bookings.get(flight)!.status).toBe('booked');
      expect(travel.cancellations.get(hotel)).toBe(1);

      const state = (await http('GET', `/v1/sessions/${id}`)).body;
      expect(state).toMatchObject({ head: 4, status: 'active', memory: { flight } });
      expect(state.toolCalls.map((c: { toolCallId: string }) => c.toolCallId)).toEqual(['f1']);
      const abandoned = (await http('GET', `/v1/sessions/${id}/state?at=6`)).body;
      // As it was at v6: booked, not yet compensated (time travel shows the past, not today).
      expect(abandoned.toolCalls.find((c: { toolCallId: string }) => c.toolCallId === 'h1')).toMatchObject({ status: 'succeeded', compensation: null });
      const types = (await http('GET', `/v1/sessions/${id}/events?from=7`)).body.events.map((e: { type: string }) => e.type);
      expect(types).toEqual(['RollbackRequested', 'CompensationApplied', 'RollbackCompleted']);

      const redo = await http('POST', `/v1/sessions/${id}/redo`, {});
      expect(redo.status).toBe(409);
      expect(redo.body.error).toMatchObject({ code: 'compensated_effects_on_path', details: [{ toolCallId: 'h1' }] });
    });

    it('compensates newest first, retries 503 with Retry-After, records every attempt, and fills templates from input and output', async () => {
      const id = await session();
      const flight = await book(id, 'flights', 'f1', { to: 'OPO' });
      const hotel = await book(id, 'hotels', 'h1', { city: 'Porto' });
      travel.failNext(`/hotels/${hotel}/cancel`, { status: 503, times: 2, retryAfterSeconds: 0 });
      const before = travel.log.length;
      const res = await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: 1, waitMs: 5000 });
      expect(res.body.rollback.status).toBe('completed');
      expect(travel.log.slice(before)).toEqual([
        `POST /hotels/${hotel}/cancel`,
        `POST /hotels/${hotel}/cancel`,
        `POST /hotels/${hotel}/cancel`,
        `POST /flights/${flight}/cancel`,
      ]);
      const rollback = await rollbackOf(res.body.rollbackId);
      expect(rollback.effects).toEqual([
        expect.objectContaining({
          toolCallId: 'h1',
          status: 'compensated',
          attempts: 3,
          detail: { status: 200, body: { cancelled: hotel, reason: 'rolled back by agent' } },
        }),
        expect.objectContaining({ toolCallId: 'f1', status: 'compensated', attempts: 1 }),
      ]);
      const events = (await http('GET', `/v1/sessions/${id}/events?from=6`)).body.events;
      const attempts = events.filter((e: { type: string }) => e.type === 'CompensationAttemptFailed');
      expect(attempts.map((e: { data: { attempt: number; error: string } }) => e.data.attempt)).toEqual([1, 2]);
      expect(attempts[0].data.error).toContain('503');
      expect(
        events.every((e: { metadata: { causationId: string | null } }) => e.metadata.causationId === null || e.metadata.causationId === res.body.rollbackId),
      ).toBe(true);
    });

    it('a compensation refused for good leaves the session needing attention; the operator retries it, and the rollback completes', async () => {
      const id = await session();
      const hotel = await book(id, 'hotels', 'h1', { city: 'Faro' });
      travel.failNext(`/hotels/${hotel}/cancel`, { status: 400, times: 1 });
      const res = await http('POST', `/v1/sessions/${id}/undo`, { waitMs: 5000 });
      expect(res.status).toBe(202);
      expect(res.body.rollback).toMatchObject({ status: 'needs_attention', effects: [{ toolCallId: 'h1', status: 'failed', attempts: 1 }] });
      expect(res.body.rollback.effects[0].detail.error).toContain('400');
      const session_ = (await http('GET', `/v1/sessions/${id}`)).body;
      expect(session_).toMatchObject({ status: 'needs_attention', head: 3, activeRollbackId: res.body.rollbackId });
      const blocked = await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'hello?' });
      expect(blocked.status).toBe(409);
      expect(blocked.body.error.code).toBe('rollback_in_progress');
      expect(travel.bookings.get(hotel)!.status).toBe('booked'); // the state tells the truth: not undone

      const retried = await http('POST', `/v1/rollbacks/${encodeURIComponent(res.body.rollbackId)}/effects/h1/retry`);
      expect(retried.status).toBe(202);
      await waitFor(async () => (await rollbackOf(res.body.rollbackId)).status === 'completed');
      expect(travel.bookings.get(hotel)!.status).toBe('cancelled');
      expect((await http('GET', `/v1/sessions/${id}`)).body).toMatchObject({ status: 'active', head: 1 });
      const types = (await http('GET', `/v1/sessions/${id}/events?from=4`)).body.events.map((e: { type: string }) => e.type);
      expect(types).toEqual(['RollbackRequested', 'CompensationFailed', 'CompensationRetryRequested', 'CompensationApplied', 'RollbackCompleted']);
    });

    it('an operator can resolve a failed compensation by hand, with a note, and the rollback completes', async () => {
      const id = await session();
      const hotel = await book(id, 'hotels', 'h1', { city: 'Braga' });
      travel.failNext(`/hotels/${hotel}/cancel`, { status: 410, times: 1 });
      const res = await http('POST', `/v1/sessions/${id}/undo`, { waitMs: 5000 });
      expect(res.body.rollback.status).toBe('needs_attention');
      const path = `/v1/rollbacks/${encodeURIComponent(res.body.rollbackId)}/effects/h1/resolve`;
      expect((await http('POST', path, {})).status).toBe(400);
      const resolved = await http('POST', path, { note: 'cancelled by phone' });
      expect(resolved.status).toBe(200);
      await waitFor(async () => (await rollbackOf(res.body.rollbackId)).status === 'completed');
      const rollback = await rollbackOf(res.body.rollbackId);
      expect(rollback.effects[0]).toMatchObject({ status: 'resolved', detail: { note: 'cancelled by phone', resolvedBy: expect.stringMatching(/^key:/) } });
      expect((await http('POST', path, { note: 'again' })).status).toBe(409);
    });

    it('compensates calls that started but never finished (crash, interrupt)', async () => {
      const id = await session();
      const started = await http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: 'dangling',
        tool: 'reserve_table',
        input: { restaurant: 'Ramiro', reservation: 'R-1' },
        effect: {
          kind: 'reversible',
          compensation: { channel: 'inline', target: 'release_table', payload: { reservation: '{{input.reservation}}' } },
          retry: fastRetry,
        },
      });
      expect(started.status).toBe(201);
      const released: unknown[] = [];
      t.app.get(InlineCompensationChannel).register('release_table', (request) => {
        released.push(request.payload);
        return { released: true };
      });
      const res = await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: 1, waitMs: 5000 });
      expect(res.body.rollback).toMatchObject({ status: 'completed', effects: [{ toolCallId: 'dangling', status: 'compensated' }] });
      expect(released).toEqual([{ reservation: 'R-1' }]);
    });

    it('inline compensators can fail for good (CompensationError) and are recorded as failed', async () => {
      const id = await session();
      t.app.get(InlineCompensationChannel).register('refuse', () => {
        throw new CompensationError('the booking is already checked in', false);
      });
      await http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: 'c',
        tool: 'x',
        input: {},
        effect: { kind: 'compensable', compensation: { channel: 'inline', target: 'refuse' } },
      });
      const res = await http('POST', `/v1/sessions/${id}/undo`, { waitMs: 5000 });
      expect(res.body.rollback.effects[0]).toMatchObject({ status: 'failed', detail: { error: 'the booking is already checked in' } });
    });

    it('the kafka channel publishes the request and waits for the reply (on the in-process bus)', async () => {
      const id = await session();
      const bus = t.app.get<MessageBus>(MESSAGE_BUS);
      const requests: { idempotencyKey: string; payload: unknown }[] = [];
      await bus.subscribe('payments.refunds', { groupId: 'refund-service' }, async (message) => {
        const request = JSON.parse(message.value);
        requests.push(request);
        await bus.publish(request.replyTopic, [
          { key: message.key, value: JSON.stringify({ idempotencyKey: request.idempotencyKey, status: 'applied', response: { refunded: 42 } }), headers: {} },
        ]);
      });
      await http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: 'pay',
        tool: 'charge',
        input: { amount: 42 },
        effect: {
          kind: 'compensable',
          compensation: { channel: 'kafka', target: 'payments.refunds', payload: { amount: '{{input.amount}}', charge: '{{output.chargeId}}' } },
        },
      });
      await http('POST', `/v1/sessions/${id}/tool-calls/pay/succeed`, { output: { chargeId: 'ch_1' } });
      const res = await http('POST', `/v1/sessions/${id}/undo`, { waitMs: 5000 });
      expect(res.body.rollback.effects[0]).toMatchObject({ status: 'compensated', detail: { refunded: 42 } });
      expect(requests).toEqual([
        expect.objectContaining({ payload: { amount: 42, charge: 'ch_1' }, idempotencyKey: expect.stringContaining(res.body.rollbackId) }),
      ]);
    });

    it('rejects templates that could not be filled at call time, not at rollback time', async () => {
      const id = await session();
      const noInput = await http('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: 'h', tool: 'book_hotels', input: { city: 'Evora' } });
      expect(noInput.status).toBe(400);
      expect(noInput.body.error).toMatchObject({ code: 'compensation_template_unresolvable', details: [{ field: 'input.requestedBy' }] });
      await http('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: 'h', tool: 'book_hotels', input: { city: 'Evora', requestedBy: 'agent' } });
      const noOutput = await http('POST', `/v1/sessions/${id}/tool-calls/h/succeed`, { output: { ref: 'no booking id' } });
      expect(noOutput.status).toBe(400);
      expect(noOutput.body.error).toMatchObject({ code: 'compensation_template_unresolvable', details: [{ field: 'output.bookingId' }] });
      const badRegistration = await http('PUT', '/v1/tools/broken', { kind: 'reversible', compensation: { channel: 'http', target: 'http://x/{{oops}}' } });
      expect(badRegistration.status).toBe(400);
      expect(badRegistration.body.error.code).toBe('compensation_template_invalid');
      const missing = await http('PUT', '/v1/tools/broken', { kind: 'compensable' });
      expect(missing.body.error.code).toBe('compensation_missing');
      expect((await http('GET', '/v1/tools/book_hotels')).body).toMatchObject({ name: 'book_hotels', effect: { kind: 'reversible', retry: fastRetry } });
    });

    it("seed 000: the wrong order's address is restored and the e-mail corrected, back to the step after the permission check", async () => {
      const id = await session();
      const world = { addresses: { 'A-1': 'Rua Augusta 1', 'B-2': 'Rua Garrett 5' } as Record<string, string>, mails: [] as string[] };
      const inline = t.app.get(InlineCompensationChannel);
      inline.register('restore_address', (r) => {
        const p = r.payload as { order: string; address: string };
        world.addresses[p.order] = p.address;
        return { restored: p.order };
      });
      inline.register('send_correction', (r) => {
        world.mails.push(`correction: ${(r.payload as { text: string }).text}`);
        return { sent: true };
      });
      await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'Change the delivery address of my order to Rua Nova 9' });
      await http('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: 'perm', tool: 'check_permission', input: { user: 'ana' }, effect: { kind: 'none' } });
      await http('POST', `/v1/sessions/${id}/tool-calls/perm/succeed`, { output: { allowed: true } });
      await http('POST', `/v1/sessions/${id}/checkpoints`, { label: 'permission-checked' });
      // The agent picks the wrong order and changes its address...
      await http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: 'addr',
        tool: 'update_address',
        input: { order: 'A-1', oldAddress: world.addresses['A-1'], newAddress: 'Rua Nova 9' },
        effect: {
          kind: 'reversible',
          compensation: { channel: 'inline', target: 'restore_address', payload: { order: '{{input.order}}', address: '{{input.oldAddress}}' } },
        },
      });
      world.addresses['A-1'] = 'Rua Nova 9';
      await http('POST', `/v1/sessions/${id}/tool-calls/addr/succeed`, { output: { ok: true } });
      // ...and e-mails a confirmation.
      await http('POST', `/v1/sessions/${id}/tool-calls`, {
        toolCallId: 'mail',
        tool: 'send_email',
        input: { to: 'ana@example.com', order: 'A-1' },
        effect: {
          kind: 'compensable',
          compensation: { channel: 'inline', target: 'send_correction', payload: { text: 'ignore our e-mail about order {{input.order}}' } },
        },
      });
      world.mails.push('address of A-1 changed');
      await http('POST', `/v1/sessions/${id}/tool-calls/mail/succeed`, { output: { messageId: 'm-1' } });
      await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'No! It was the other order, B-2.' });

      const res = await http('POST', `/v1/sessions/${id}/rollback`, { toCheckpoint: 'permission-checked', waitMs: 5000 });
      expect(res.body.rollback).toMatchObject({
        status: 'completed',
        effects: [
          { toolCallId: 'mail', status: 'compensated' },
          { toolCallId: 'addr', status: 'compensated' },
        ],
      });
      expect(world.addresses['A-1']).toBe('Rua Augusta 1');
      expect(world.mails).toEqual(['address of A-1 changed', 'correction: ignore our e-mail about order A-1']);
      const state = (await http('GET', `/v1/sessions/${id}`)).body;
      expect(state.head).toBe(4);
      expect(state.toolCalls).toEqual([expect.objectContaining({ toolCallId: 'perm', status: 'succeeded' })]);
    });
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
