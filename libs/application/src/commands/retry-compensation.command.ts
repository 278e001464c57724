import { Command } from '@nestjs/cqrs';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/** An operator asks the saga to try a failed compensation again (recorded). */
export class RetryCompensationCommand extends Command<WriteResult> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly rollbackId: string,
    readonly toolCallId: string,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
