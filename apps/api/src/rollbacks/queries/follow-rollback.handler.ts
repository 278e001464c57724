import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SessionQueries, writtenEvent } from '@rewind/engine';
import { RollbackSaga } from '@rewind/sagas';
import { presentRollback } from '../rollback.presenter';
import { FollowRollbackQuery, type FollowedRollback } from './follow-rollback.query';

@QueryHandler(FollowRollbackQuery)
export class FollowRollbackHandler implements IQueryHandler<FollowRollbackQuery, FollowedRollback> {
  constructor(
    private readonly sessions: SessionQueries,
    private readonly saga: RollbackSaga,
  ) {}

  async execute({ caller, sessionId, rollbackId, waitMs, afterVersion }: FollowRollbackQuery): Promise<FollowedRollback> {
    if (waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        // Here, or followed while another process carries it out (taken over if that process dies).
        this.saga.follow(caller.tenantId, sessionId, rollbackId, waitMs).catch(() => null),
        new Promise((resolve) => (timer = setTimeout(resolve, waitMs))),
      ]);
      clearTimeout(timer);
    }
    const state = await this.sessions.getState(caller, sessionId);
    const since = state.version > afterVersion ? await this.sessions.events(caller, sessionId, afterVersion + 1, state.version - afterVersion) : [];
    // A replayed request may be answered after later writes: only this rollback's own records.
    const events = since.filter((e) => (e.data as { rollbackId?: unknown } | null)?.rollbackId === rollbackId).map(writtenEvent);
    return { state, rollback: presentRollback(state, rollbackId), events };
  }
}
