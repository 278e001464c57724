import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { SessionState } from '@rewind/domain';
import { SessionQueries } from '@rewind/engine';
import { GetSessionStateQuery } from './get-session-state.query';

@QueryHandler(GetSessionStateQuery)
export class GetSessionStateHandler implements IQueryHandler<GetSessionStateQuery, SessionState> {
  constructor(private readonly sessions: SessionQueries) {}

  execute({ caller, sessionId, at }: GetSessionStateQuery): Promise<SessionState> {
    return this.sessions.getState(caller, sessionId, at);
  }
}
