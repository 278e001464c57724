import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError, type EffectDescriptor } from '@rewind/domain';
import { presentState, SessionRepository, SessionService } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { STRICT_EGRESS } from './channels/egress-policy';
import { HttpCompensationChannel } from './channels/http-channel';
import { InlineCompensationChannel } from './channels/inline-channel';
import { RollbackSaga } from './rollback-saga';

const caller = { tenantId: 't', actor: 'tester' };

/** A real HTTP compensator that answers 200 to anything (the worst case: it cannot tell a bad request). */
let server: Server;
let baseUrl: string;
const received: { url: string; body: string }[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ url: request.url ?? '', body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"cancelled":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function setUp() {
  const sessions = new SessionService(new SessionRepository(new InMemoryEventStore(), { snapshotEvery: 0 }), { compensationEnabled: true });
  const inline = new InlineCompensationChannel();
  inline.register('cancel', () => ({ cancelled: true }));
  const saga = new RollbackSaga(sessions, [new HttpCompensationChannel({ ...STRICT_EGRESS, allow: ['127.0.0.1'] }), inline]);
  return { sessions, saga };
}

describe('a rollback over a tool call that started but never finished', () => {
  const booking = (): EffectDescriptor => ({
    kind: 'reversible',
    compensation: { channel: 'http', target: `${baseUrl}/bookings/{{output.bookingId}}/cancel`, payload: { hotel: '{{input.hotel}}' } },
    retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0, timeoutMs: 2_000 },
  });

  it('never sends a compensation its output would have to fill: it needs an operator, with the reason', async () => {
    const { sessions, saga } = setUp();
    await sessions.startSession(caller, { sessionId: 's' });
    await sessions.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: 'book the Alfama Inn' });
    // The agent crashed during the call: no ToolCallSucceeded, so there is no bookingId.
    await sessions.execute(caller, 's', { type: 'StartToolCall', toolCallId: 'book-1', tool: 'book_hotel', input: { hotel: 'Alfama Inn' }, effect: booking() });

    const plan = await sessions.planHeadMove(caller, 's', { type: 'MoveHead', kind: 'rollback', toVersion: 2 });
    expect(plan.toCompensate).toEqual([
      expect.objectContaining({ toolCallId: 'book-1', reason: expect.stringMatching(/needs an operator.*never finished.*output\.bookingId/) }),
    ]);

    const before = received.length;
    const result = await sessions.execute(caller, 's', { type: 'MoveHead', kind: 'rollback', toVersion: 2 });
    const rollback = await saga.run('t', 's', result.rollbackId!);
    expect(received.slice(before)).toEqual([]);
    expect(rollback?.status).toBe('needs_attention');
    const state = await sessions.getState(caller, 's');
    expect(state.status).toBe('needs_attention');
    expect(state.effectOutcomes[3]).toMatchObject({ status: 'failed', detail: { error: expect.stringMatching(/Nothing was sent.*resolve this effect/) } });
  });

  it('still compensates a finished call (its output fills the template) and an unfinished one whose template needs only the input', async () => {
    const { sessions, saga } = setUp();
    await sessions.startSession(caller, { sessionId: 's' });
    await sessions.execute(caller, 's', { type: 'StartToolCall', toolCallId: 'b1', tool: 'book_hotel', input: { hotel: 'A' }, effect: booking() });
    await sessions.execute(caller, 's', { type: 'CompleteToolCall', toolCallId: 'b1', output: { bookingId: 'H-981' } });
    const inputOnly: EffectDescriptor = { ...booking(), compensation: { channel: 'http', target: `${baseUrl}/holds/{{input.hotel}}/release` } };
    await sessions.execute(caller, 's', { type: 'StartToolCall', toolCallId: 'h1', tool: 'hold_room', input: { hotel: 'B' }, effect: inputOnly });

    const before = received.length;
    const result = await sessions.execute(caller, 's', { type: 'MoveHead', kind: 'rollback', toVersion: 1 });
    expect((await saga.run('t', 's', result.rollbackId!))?.status).toBe('completed');
    expect(received.slice(before).map((r) => r.url)).toEqual(['/holds/B/release', '/bookings/H-981/cancel']);
    expect(
      received
        .slice(before)
        .map((r) => r.body)
        .join(),
    ).not.toContain('null');
  });
});

describe('canRedo after an undo', () => {
  const inlineEffect: EffectDescriptor = { kind: 'reversible', compensation: { channel: 'inline', target: 'cancel' } };

  it('is false, with the reason, when redo would walk back onto a compensated effect; redo is indeed refused', async () => {
    const { sessions, saga } = setUp();
    await sessions.startSession(caller, { sessionId: 's' });
    await sessions.execute(caller, 's', { type: 'StartToolCall', toolCallId: 'c', tool: 'book', input: {}, effect: inlineEffect });
    await sessions.execute(caller, 's', { type: 'CompleteToolCall', toolCallId: 'c', output: { id: 1 } });
    const undo = await sessions.execute(caller, 's', { type: 'MoveHead', kind: 'undo' });
    await saga.run('t', 's', undo.rollbackId!);

    const presented = presentState(await sessions.getState(caller, 's'));
    expect(presented.canRedo).toBe(false);
    expect(presented.redoBlockedBy).toMatch(/"c" \(compensated\)/);
    const redo = sessions.execute(caller, 's', { type: 'MoveHead', kind: 'redo' });
    await expect(redo).rejects.toMatchObject({ code: 'compensated_effects_on_path' });
  });

  it('matches what redo does, for any sequence of steps, undos, redos and rollbacks (property)', async () => {
    type Action = { kind: 'message' } | { kind: 'call'; effect: boolean; finish: boolean } | { kind: 'undo'; steps: number } | { kind: 'redo' };
    const action: fc.Arbitrary<Action> = fc.oneof(
      fc.constant({ kind: 'message' as const }),
      fc.record({ kind: fc.constant('call' as const), effect: fc.boolean(), finish: fc.boolean() }),
      fc.record({ kind: fc.constant('undo' as const), steps: fc.integer({ min: 1, max: 3 }) }),
      fc.constant({ kind: 'redo' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 12 }), async (actions) => {
        const { sessions, saga } = setUp();
        await sessions.startSession(caller, { sessionId: 's' });
        let n = 0;
        const attempt = async (run: () => Promise<{ rollbackId?: string }>) => {
          try {
            const result = await run();
            if (result.rollbackId) await saga.run('t', 's', result.rollbackId);
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
          }
        };
        for (const a of actions) {
          const id = `c${++n}`;
          if (a.kind === 'message') await attempt(() => sessions.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: id }));
          if (a.kind === 'call') {
            const effect: EffectDescriptor = a.effect ? inlineEffect : { kind: 'none' };
            await attempt(() => sessions.execute(caller, 's', { type: 'StartToolCall', toolCallId: id, tool: 'book', input: {}, effect }));
            if (a.finish) await attempt(() => sessions.execute(caller, 's', { type: 'CompleteToolCall', toolCallId: id, output: { id } }));
          }
          if (a.kind === 'undo') await attempt(() => sessions.execute(caller, 's', { type: 'MoveHead', kind: 'undo', steps: a.steps }));
          if (a.kind === 'redo') await attempt(() => sessions.execute(caller, 's', { type: 'MoveHead', kind: 'redo' }));
          const presented = presentState(await sessions.getState(caller, 's'));
          const redoRefusal = await sessions.planHeadMove(caller, 's', { type: 'MoveHead', kind: 'redo' }).then(
            (plan) => (plan.compensatedOnTheWay.length > 0 ? 'blocked' : null),
            (error: DomainError) => error.code,
          );
          expect(presented.canRedo, JSON.stringify({ actions, redoRefusal })).toBe(redoRefusal === null);
          expect(presented.redoBlockedBy !== null).toBe(redoRefusal === 'blocked');
        }
      }),
      { numRuns: 60 },
    );
  });
});
