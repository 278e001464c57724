import { Query } from '@nestjs/cqrs';
import type { Caller, SessionQueries } from '@rewind/engine';

export type SessionDiff = Awaited<ReturnType<SessionQueries['diff']>>;

/** What changed in a session between two versions. */
export class GetDiffQuery extends Query<SessionDiff> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly from: number,
    readonly to: number,
  ) {
    super();
  }
}
