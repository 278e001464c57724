import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SessionQueries } from '@rewind/engine';
import { GetTimelineQuery, type Timeline } from './get-timeline.query';

@QueryHandler(GetTimelineQuery)
export class GetTimelineHandler implements IQueryHandler<GetTimelineQuery, Timeline> {
  constructor(private readonly sessions: SessionQueries) {}

  execute({ caller, sessionId, page }: GetTimelineQuery): Promise<Timeline> {
    return this.sessions.timeline(caller, sessionId, page);
  }
}
