import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Page, SessionSummary } from '@rewind/projections';
import { ReadModelsService } from '../read-models.service';
import { ListSessionSummariesQuery } from './list-session-summaries.query';

@QueryHandler(ListSessionSummariesQuery)
export class ListSessionSummariesHandler implements IQueryHandler<ListSessionSummariesQuery, Page<SessionSummary>> {
  constructor(private readonly readModels: ReadModelsService) {}

  async execute({ filter }: ListSessionSummariesQuery): Promise<Page<SessionSummary>> {
    await this.readModels.fresh('sessions');
    return this.readModels.query(() => this.readModels.queries.listSessions(filter));
  }
}
