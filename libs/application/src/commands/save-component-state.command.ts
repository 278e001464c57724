import { Command } from '@nestjs/cqrs';
import type { JsonValue } from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/** Saves a named component's own state in the session (seed 001's plugin state). */
export class SaveComponentStateCommand extends Command<WriteResult> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly name: string,
    readonly state: JsonValue,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
