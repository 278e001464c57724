import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SessionQueries } from '@rewind/engine';
import type { StoredEvent } from '@rewind/event-store';
import { GetEventsQuery } from './get-events.query';

@QueryHandler(GetEventsQuery)
export class GetEventsHandler implements IQueryHandler<GetEventsQuery, StoredEvent[]> {
  constructor(private readonly sessions: SessionQueries) {}

  execute({ caller, sessionId, from, limit }: GetEventsQuery): Promise<StoredEvent[]> {
    return this.sessions.events(caller, sessionId, from, limit);
  }
}
