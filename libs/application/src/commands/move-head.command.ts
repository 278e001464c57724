import { Command } from '@nestjs/cqrs';
import type { MoveHead } from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/** Rollback, undo or redo: makes another step current (a rollback across effects starts the saga). */
export class MoveHeadCommand extends Command<WriteResult> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly move: MoveHead,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
