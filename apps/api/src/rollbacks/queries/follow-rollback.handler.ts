import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SessionQueries } from '@rewind/engine';
import { RollbackSaga } from '@rewind/sagas';
import { presentRollback } from '../rollback.presenter';
import { FollowRollbackQuery, type FollowedRollback } from './follow-rollback.query';

@QueryHandler(FollowRollbackQuery)
export class FollowRollbackHandler implements IQueryHandler<FollowRollbackQuery, FollowedRollback> {
  constructor(
    private readonly sessions: SessionQueries,
    private readonly saga: RollbackSaga,
  ) {}

  async execute({ caller, sessionId, rollbackId, waitMs }: FollowRollbackQuery): Promise<FollowedRollback> {
    if (waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.saga.run(caller.tenantId, sessionId, rollbackId).catch(() => null),
        new Promise((resolve) => (timer = setTimeout(resolve, waitMs))),
      ]);
      clearTimeout(timer);
    }
    const state = await this.sessions.getState(caller, sessionId);
    return { state, rollback: presentRollback(state, rollbackId) };
  }
}
