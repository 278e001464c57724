import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { HeadMovePlan } from '@rewind/domain';
import { SessionQueries } from '@rewind/engine';
import { PlanHeadMoveQuery } from './plan-head-move.query';

@QueryHandler(PlanHeadMoveQuery)
export class PlanHeadMoveHandler implements IQueryHandler<PlanHeadMoveQuery, HeadMovePlan> {
  constructor(private readonly sessions: SessionQueries) {}

  execute({ caller, sessionId, move }: PlanHeadMoveQuery): Promise<HeadMovePlan> {
    return this.sessions.planHeadMove(caller, sessionId, move);
  }
}
