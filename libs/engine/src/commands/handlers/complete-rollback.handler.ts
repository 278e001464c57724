import { decide, type CompleteRollback } from '@rewind/domain';
import type { CompleteRollbackCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { assertSagaCaller, decideContext, pathFrom, writeSession, type SessionWriteContext } from './session-write';

/** The saga completes a rollback: the head lands on the rollback's target, whose path is restored once, after the decider agreed. */
export class CompleteRollbackHandler {
  constructor(private readonly context: SessionWriteContext) {}

  async execute({ caller, sessionId, rollbackId, options }: CompleteRollbackCommand): Promise<WriteResult> {
    assertSagaCaller(caller, 'CompleteRollback');
    const command: CompleteRollback = { type: 'CompleteRollback', rollbackId };
    return writeSession(
      this.context,
      caller,
      sessionId,
      options,
      () => ({ sessionId, command }),
      async (state, stamp, streamId) => {
        // A fork records its steps on the target path in the same write: the path is loaded first (unknown rollback: the decider refuses).
        const rollback = Object.hasOwn(state.rollbacks, rollbackId) ? state.rollbacks[rollbackId] : undefined;
        const targetPath = rollback ? await this.context.repository.pathAt(streamId, rollback.toVersion) : undefined;
        const events = stamp(decide(state, command, decideContext(this.context, caller, targetPath ? { pathAt: pathFrom(targetPath) } : {})).events);
        return { events, context: targetPath ? { targetPath } : {} };
      },
      command.type,
    );
  }
}
