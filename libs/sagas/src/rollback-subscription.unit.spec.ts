import { describe, expect, it, vi } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { InMemoryCheckpointStore, SubscriptionHub, SubscriptionLoop } from '@rewind/event-store/subscriptions';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { InlineCompensationChannel } from './channels/inline-channel';
import { RollbackSaga } from './rollback-saga';
import { RollbackSubscription, SAGA_CHECKPOINT } from './rollback-subscription';
import { createSessionRuntime } from './session-runtime';

const caller = { tenantId: 't', actor: 'tester' };

describe('RollbackSubscription', () => {
  it('resumes a rollback left in progress, and keeps its restart scan short with a checkpoint', async () => {
    const store = new InMemoryEventStore();
    // A process that recorded the rollback request and died before compensating (no saga attached).
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }), { compensationEnabled: true });
    for (const id of ['done', 'crashed']) {
      await sessions.startSession(caller, { sessionId: id });
      await sessions.execute(caller, id, {
        type: 'StartToolCall',
        toolCallId: 'c',
        tool: 'book',
        input: {},
        effect: { kind: 'reversible', compensation: { channel: 'inline', target: 'cancel' } },
      });
      await sessions.execute(caller, id, { type: 'CompleteToolCall', toolCallId: 'c', output: {} });
    }
    const inline = new InlineCompensationChannel();
    const undone: string[] = [];
    inline.register('cancel', (r) => void undone.push(r.sessionId));
    const saga = new RollbackSaga(sessions, [inline]);
    const first = await sessions.execute(caller, 'done', { type: 'MoveHead', kind: 'undo' });
    await saga.run('t', 'done', first.rollbackId!);
    const filler = await store.lastPosition();
    const crashed = await sessions.execute(caller, 'crashed', { type: 'MoveHead', kind: 'undo' });

    const checkpoints = new InMemoryCheckpointStore();
    const resume = async () => {
      const subscription = new RollbackSubscription(saga, store, { checkpoints });
      await new SubscriptionLoop(store, subscription).catchUp();
      return subscription.resumed;
    };
    expect(await resume()).toBe(1);
    await saga.drain();
    expect(undone).toEqual(['done', 'crashed']);
    expect((await sessions.getState(caller, 'crashed')).rollbacks[crashed.rollbackId!]!.status).toBe('completed');
    // The scan stopped before the rollback it resumed, so a second restart looks at it again...
    const afterFirst = await checkpoints.load(SAGA_CHECKPOINT);
    expect(afterFirst).toBeGreaterThanOrEqual(filler);
    expect(afterFirst).toBeLessThan(await store.lastPosition());
    // ...finds nothing left to do, and moves the checkpoint to the end of the log.
    const second = new RollbackSubscription(saga, store, { checkpoints });
    await new SubscriptionLoop(store, second).catchUp();
    expect(second.resumed).toBe(0);
    expect(await checkpoints.load(SAGA_CHECKPOINT)).toBe(await store.lastPosition());
  });

  it("starts a rollback its own process asks for as soon as the commit pokes the hub, and leaves other processes' to them", async () => {
    const store = new InMemoryEventStore();
    const hub = new SubscriptionHub(store, { idleDelayMs: 60_000, lingerMs: 1 }); // only a poke wakes it
    const checkpoints = new InMemoryCheckpointStore();
    const runtime = createSessionRuntime(store, { snapshotEvery: 0, bus: new InProcessMessageBus(), hub, checkpoints });
    const undone: string[] = [];
    runtime.inline.register('cancel', (r) => void undone.push(r.sessionId));
    // Another process over the same log, with no hub: its commits do not reach this process's set.
    const other = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }), { compensationEnabled: true });
    runtime.rollbacks!.start();
    for (const [id, service] of [
      ['mine', runtime.sessions],
      ['theirs', other],
    ] as const) {
      await service.startSession(caller, { sessionId: id });
      await service.execute(caller, id, {
        type: 'StartToolCall',
        toolCallId: 'c',
        tool: 'book',
        input: {},
        effect: { kind: 'reversible', compensation: { channel: 'inline', target: 'cancel' } },
      });
      await service.execute(caller, id, { type: 'CompleteToolCall', toolCallId: 'c', output: {} });
    }
    const theirs = await other.execute(caller, 'theirs', { type: 'MoveHead', kind: 'undo' });
    const theirsAt = await store.lastPosition();
    const mine = await runtime.sessions.execute(caller, 'mine', { type: 'MoveHead', kind: 'undo' });
    // The loop polls once a minute here: only the commit's poke can have started it.
    await vi.waitFor(() => expect(undone).toEqual(['mine']), { timeout: 10_000 });
    await runtime.saga.drain();
    await runtime.rollbacks!.stop();
    expect(undone).toEqual(['mine']);
    expect((await runtime.sessions.getState(caller, 'mine')).rollbacks[mine.rollbackId!]!.status).toBe('completed');
    expect((await runtime.sessions.getState(caller, 'theirs')).rollbacks[theirs.rollbackId!]!.status).toBe('in_progress');
    // The checkpoint both processes share stays before the other process's open rollback, so its restart resumes it.
    expect(await checkpoints.load(SAGA_CHECKPOINT)).toBeLessThan(theirsAt);
  });
});
