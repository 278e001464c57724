import { Command } from '@nestjs/cqrs';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/** An operator records that a failed compensation was undone by hand, with a note. */
export class ResolveCompensationCommand extends Command<WriteResult> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly rollbackId: string,
    readonly toolCallId: string,
    readonly note: string,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
