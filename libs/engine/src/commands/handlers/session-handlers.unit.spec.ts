import { describe, expect, it, vi } from 'vitest';
import { decide, type EffectDescriptor } from '@rewind/domain';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from '../../session-repository';
import { SessionService } from '../../session-service';
import { sessionStreamId } from '../../stream-id';
import { ToolRegistry } from '../../tool-registry';
import { CompleteRollbackCommand, MoveHeadCommand, RecordCompensationOutcomeCommand, RecordStepCommand } from '../impl/session-write-commands';

const caller = { tenantId: 't', actor: 'tester' };
const saga = { ...caller, actor: 'saga', scope: 'saga' as const };
const booking: EffectDescriptor = { kind: 'reversible', compensation: { channel: 'http', target: 'http://x/bookings/{{output.id}}/cancel' } };

/** A session whose v4 is a succeeded booking (an effect to compensate) after two messages. */
async function sessionWithBooking() {
  const store = new InMemoryEventStore();
  const repository = new SessionRepository(store, { snapshotEvery: 0 });
  const tools = new ToolRegistry(store);
  const sessions = new SessionService(repository, { tools, compensationEnabled: true });
  await tools.register(caller, 'book', booking);
  await sessions.startSession(caller, { sessionId: 's' }); // v1
  await sessions.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: 'book it' }); // v2
  const started = await sessions.dispatch(new RecordStepCommand(caller, 's', { type: 'StartToolCall', toolCallId: 'b1', tool: 'book', input: {} })); // v3
  await sessions.execute(caller, 's', { type: 'CompleteToolCall', toolCallId: 'b1', output: { id: 7 } }); // v4
  return { store, repository, sessions, started };
}

describe('the session command handlers', () => {
  it('a tool call that declares no effect gets the one its tool registered, looked up by the handler', async () => {
    const { store, started } = await sessionWithBooking();
    const [event] = await store.readStream(sessionStreamId('t', 's'), { fromVersion: started.version, toVersion: started.version });
    expect(event).toMatchObject({ type: 'ToolCallStarted', data: { toolCallId: 'b1', effect: booking } });
  });

  it('a rollback over an effect restores its target path once, and the completion restores the path it lands on once', async () => {
    const { repository, sessions } = await sessionWithBooking();
    const pathAt = vi.spyOn(repository, 'pathAt');

    const moved = await sessions.dispatch(new MoveHeadCommand(caller, 's', { type: 'MoveHead', kind: 'rollback', toVersion: 2 }));
    expect(moved.rollbackId).toBeDefined();
    expect(pathAt.mock.calls).toEqual([[expect.any(String), 2]]);

    pathAt.mockClear();
    const rollbackId = moved.rollbackId!;
    await sessions.dispatch(new RecordCompensationOutcomeCommand(saga, 's', rollbackId, 3, { status: 'applied', attempts: 1, response: null }));
    expect(pathAt).not.toHaveBeenCalled();
    const completed = await sessions.dispatch(new CompleteRollbackCommand(saga, 's', rollbackId));
    expect(pathAt.mock.calls).toEqual([[expect.any(String), 2]]);
    expect(completed).toMatchObject({ head: 2, status: 'active' });
    // The head landed on the path of v2: the booking is no longer on it.
    expect((await sessions.getState(caller, 's')).path.toolCalls).toEqual({});
  });

  it("the saga's records are refused to any caller outside the saga scope, in the documented shape, writing nothing", async () => {
    const { sessions } = await sessionWithBooking();
    const moved = await sessions.dispatch(new MoveHeadCommand(caller, 's', { type: 'MoveHead', kind: 'rollback', toVersion: 2 }));
    const before = (await sessions.getState(caller, 's')).version;
    for (const command of [
      new CompleteRollbackCommand(caller, 's', moved.rollbackId!),
      new RecordCompensationOutcomeCommand(caller, 's', moved.rollbackId!, 3, { status: 'applied', attempts: 1, response: null }),
    ]) {
      await expect(sessions.dispatch(command)).rejects.toMatchObject({
        kind: 'validation',
        code: 'validation_failed',
        message: expect.stringContaining('only the rollback saga records it'),
      });
    }
    expect((await sessions.getState(caller, 's')).version).toBe(before);
  });

  it('an undo resolves its target once: one path restore, and the head lands where the plan said', async () => {
    const { repository, sessions } = await sessionWithBooking();
    await sessions.execute(caller, 's', { type: 'RecordMessage', role: 'agent', content: 'booked' }); // v5
    const pathAt = vi.spyOn(repository, 'pathAt');
    const plan = await sessions.planHeadMove(caller, 's', { type: 'MoveHead', kind: 'undo' });
    pathAt.mockClear();
    const undone = await sessions.dispatch(new MoveHeadCommand(caller, 's', { type: 'MoveHead', kind: 'undo' }));
    expect(pathAt).toHaveBeenCalledTimes(1);
    expect(undone.head).toBe(plan.toVersion);
  });

  it('the decider plans on the target the handler resolved, without resolving it again', async () => {
    const { repository, sessions } = await sessionWithBooking();
    const state = await sessions.getState(caller, 's');
    const path = await repository.pathAt(sessionStreamId('t', 's'), 2);
    // An undo would go to v2; told the target is v1, the decider plans the move to v1.
    const decided = decide(
      state,
      { type: 'MoveHead', kind: 'undo' },
      {
        newId: () => 'r',
        actor: 'tester',
        compensationEnabled: true,
        headMoveTarget: { kind: 'undo', toVersion: 1 },
        pathAt: () => path,
      },
    );
    expect(decided.plan).toMatchObject({ kind: 'undo', toVersion: 1 });
  });
});
