import { Query } from '@nestjs/cqrs';
import type { HeadMovePlan, MoveHead } from '@rewind/domain';
import type { Caller } from '@rewind/engine';

/** A head move's plan without making it (dry run): where the head lands, which effects would be compensated. */
export class PlanHeadMoveQuery extends Query<HeadMovePlan> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly move: MoveHead,
  ) {
    super();
  }
}
