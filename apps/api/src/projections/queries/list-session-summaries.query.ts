import { Query } from '@nestjs/cqrs';
import type { Page, SessionListQuery, SessionSummary } from '@rewind/projections';

/** The tenant's sessions from the sessions projection: filters, sort, cursor paging. */
export class ListSessionSummariesQuery extends Query<Page<SessionSummary>> {
  constructor(readonly filter: SessionListQuery) {
    super();
  }
}
