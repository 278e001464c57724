import { decide, resolveHeadMoveTarget } from '@rewind/domain';
import type { MoveHeadCommand } from '../impl/session-write-commands';
import type { WriteResult } from '../write-request';
import { decideAlone } from './decide-alone';
import { decideContext, pathFrom, writeSession, type SessionWriteContext } from './session-write';

/**
 * Rollback, undo or redo: the target is resolved once on the loaded state and its path
 * restored once; the decider plans the move on them, and the commit lands the head on that path.
 */
export class MoveHeadHandler {
  constructor(private readonly context: SessionWriteContext) {}

  execute({ caller, sessionId, move, options }: MoveHeadCommand): Promise<WriteResult> {
    return writeSession(
      this.context,
      caller,
      sessionId,
      options,
      () => ({ sessionId, command: move }),
      (state, stamp, streamId) => {
        // No session yet, or a rollback running: the decider refuses before it needs a target.
        if (state.version === 0 || state.activeRollbackId !== null) return decideAlone(this.context, caller, move)(state, stamp, streamId);
        const headMoveTarget = resolveHeadMoveTarget(state, move);
        return this.context.repository.pathAt(streamId, headMoveTarget.toVersion).then((targetPath) => ({
          events: stamp(decide(state, move, decideContext(this.context, caller, { headMoveTarget, pathAt: pathFrom(targetPath) })).events),
          context: { targetPath },
        }));
      },
      move.type,
    );
  }
}
