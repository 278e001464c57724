import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DomainError } from '@rewind/domain';
import { SessionQueries } from '@rewind/engine';
import { sessionOfRollback } from '@rewind/sagas';
import { presentRollback } from '../rollback.presenter';
import { GetRollbackQuery, type LocatedRollback } from './get-rollback.query';

@QueryHandler(GetRollbackQuery)
export class GetRollbackHandler implements IQueryHandler<GetRollbackQuery, LocatedRollback | null> {
  constructor(private readonly sessions: SessionQueries) {}

  async execute({ caller, rollbackId }: GetRollbackQuery): Promise<LocatedRollback | null> {
    // The rollback id names its session: no session (or not this tenant's) means no rollback.
    const sessionId = sessionOfRollback(rollbackId);
    if (!sessionId) return null;
    const state = await this.sessions.getState(caller, sessionId).catch((error: unknown) => {
      if (error instanceof DomainError) return null;
      throw error;
    });
    const view = state && presentRollback(state, rollbackId);
    return view ? { sessionId, view } : null;
  }
}
