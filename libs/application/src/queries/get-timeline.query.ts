import { Query } from '@nestjs/cqrs';
import type { Caller, SessionQueries } from '@rewind/engine';

export type Timeline = Awaited<ReturnType<SessionQueries['timeline']>>;

/** A session's timeline DAG: nodes, head, branches, checkpoints, rollbacks. */
export class GetTimelineQuery extends Query<Timeline> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    /** Detail only these versions (without `from`: the newest `limit`); the DAG comes whole as `parents`. */
    readonly page?: { from?: number; limit: number },
  ) {
    super();
  }
}
