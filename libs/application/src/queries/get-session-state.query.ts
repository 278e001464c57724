import { Query } from '@nestjs/cqrs';
import type { SessionState } from '@rewind/domain';
import type { Caller } from '@rewind/engine';

/** A session's state: the newest, or at any past version on any branch (`at`). */
export class GetSessionStateQuery extends Query<SessionState> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly at?: number,
  ) {
    super();
  }
}
