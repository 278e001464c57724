import { Command } from '@nestjs/cqrs';
import type { JsonObject } from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/** Starts a session (its id is drawn when the caller gives none). */
export class StartSessionCommand extends Command<WriteResult> {
  constructor(
    readonly caller: Caller,
    readonly input: { sessionId?: string; title?: string; metadata?: JsonObject },
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
