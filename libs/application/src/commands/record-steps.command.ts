import { Command } from '@nestjs/cqrs';
import type { SessionCommand } from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/**
 * Several steps in one atomic write, in order. Typed as any session command because a
 * batch arrives unchecked from a transport: anything but a step is refused, by its index.
 */
export class RecordStepsCommand extends Command<WriteResult> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly steps: readonly SessionCommand[],
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
