import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SessionQueries } from '@rewind/engine';
import { GetContextQuery, type SessionContext } from './get-context.query';

@QueryHandler(GetContextQuery)
export class GetContextHandler implements IQueryHandler<GetContextQuery, SessionContext> {
  constructor(private readonly sessions: SessionQueries) {}

  execute({ caller, sessionId, window }: GetContextQuery): Promise<SessionContext> {
    return this.sessions.context(caller, sessionId, window);
  }
}
