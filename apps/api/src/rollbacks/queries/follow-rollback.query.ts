import { Query } from '@nestjs/cqrs';
import type { SessionState } from '@rewind/domain';
import type { Caller, WrittenEvent } from '@rewind/engine';
import type { presentRollback } from '../rollback.presenter';

export interface FollowedRollback {
  /** The session's state once the wait is over. */
  state: SessionState;
  rollback: ReturnType<typeof presentRollback>;
  /** What the saga appended for this rollback after `afterVersion`, by the time the wait ended. */
  events: WrittenEvent[];
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
    /** The version the head move itself wrote: the saga's events come after it. */
    readonly afterVersion = 0,
  ) {
    super();
  }
}
