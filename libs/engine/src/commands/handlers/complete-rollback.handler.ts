import { decide, type CompleteRollback } from '@rewind/domain';
import type { CompleteRollbackCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { assertSagaCaller, decideContext, writeSession, type SessionWriteContext } from './session-write';

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
        const events = stamp(decide(state, command, decideContext(this.context, caller)).events);
        // The decider found the rollback in progress: its target is known.
        const targetPath = await this.context.repository.pathAt(streamId, state.rollbacks[rollbackId]!.toVersion);
        return { events, context: { targetPath } };
      },
      command.type,
    );
  }
}
