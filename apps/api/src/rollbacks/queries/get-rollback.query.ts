import { Query } from '@nestjs/cqrs';
import type { Caller } from '@rewind/engine';
import type { presentRollback } from '../rollback.presenter';

export interface LocatedRollback {
  sessionId: string;
  view: NonNullable<ReturnType<typeof presentRollback>>;
}

/** A rollback's plan and each effect's outcome, live; null when the tenant has no such rollback. */
export class GetRollbackQuery extends Query<LocatedRollback | null> {
  constructor(
    readonly caller: Caller,
    readonly rollbackId: string,
  ) {
    super();
  }
}
