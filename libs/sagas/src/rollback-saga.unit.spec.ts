import { describe, expect, it } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { InMemoryCheckpointStore } from '@rewind/messaging';
import { InlineCompensationChannel } from './channels/inline-channel';
import { RollbackSaga, SAGA_CHECKPOINT } from './rollback-saga';

const caller = { tenantId: 't', actor: 'tester' };

describe('RollbackSaga.resumeAll', () => {
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
    expect(await saga.resumeAll(store, checkpoints)).toBe(1);
    await saga.drain();
    expect(undone).toEqual(['done', 'crashed']);
    expect((await sessions.getState(caller, 'crashed')).rollbacks[crashed.rollbackId!]!.status).toBe('completed');
    // The scan stopped before the rollback it resumed, so a second restart looks at it again...
    const afterFirst = await checkpoints.load(SAGA_CHECKPOINT);
    expect(afterFirst).toBeGreaterThanOrEqual(filler);
    expect(afterFirst).toBeLessThan(await store.lastPosition());
    // ...finds nothing left to do, and moves the checkpoint to the end of the log.
    expect(await saga.resumeAll(store, checkpoints)).toBe(0);
    expect(await checkpoints.load(SAGA_CHECKPOINT)).toBe(await store.lastPosition());
  });
});
