import { Command } from '@nestjs/cqrs';
import type { Caller } from '@rewind/engine';

/** Destroys a session's data key: its encrypted fields are unreadable from then on, on every read path. */
export class ShredSessionCommand extends Command<{ sessionId: string; keysDestroyed: number }> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
  ) {
    super();
  }
}
