import { Command } from '@nestjs/cqrs';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/** Labels the current head, so that a rollback can name it. */
export class CreateCheckpointCommand extends Command<WriteResult> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly label: string,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
