import { Query } from '@nestjs/cqrs';
import type { SessionState } from '@rewind/domain';
import type { Caller } from '@rewind/engine';
import type { presentRollback } from '../rollback.presenter';

export interface FollowedRollback {
  /** The session's state once the wait is over. */
  state: SessionState;
  rollback: ReturnType<typeof presentRollback>;
}

/**
 * A rollback a head move just started, after waiting up to `waitMs` for the saga to finish
 * it (0: no wait). The wait joins the run the commit started; the deadline stops the wait,
 * not the run.
 */
export class FollowRollbackQuery extends Query<FollowedRollback> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly rollbackId: string,
    readonly waitMs = 0,
  ) {
    super();
  }
}
