import { Command } from '@nestjs/cqrs';
import type { SessionCommand } from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/**
 * One step an agent took: a message, a tool call's start or outcome, memory, a context
 * variable, a task, an interruption. Typed as any session command because transports map
 * to the wide type; anything but a step is refused.
 */
export class RecordStepCommand extends Command<WriteResult> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly step: SessionCommand,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
