import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SessionQueries } from '@rewind/engine';
import { GetDiffQuery, type SessionDiff } from './get-diff.query';

@QueryHandler(GetDiffQuery)
export class GetDiffHandler implements IQueryHandler<GetDiffQuery, SessionDiff> {
  constructor(private readonly sessions: SessionQueries) {}

  execute({ caller, sessionId, from, to }: GetDiffQuery): Promise<SessionDiff> {
    return this.sessions.diff(caller, sessionId, from, to);
  }
}
