import { Command } from '@nestjs/cqrs';
import type { Caller } from '@rewind/engine';
import type { ShredReport } from '@rewind/tenancy';

/** What a shred destroyed and what it made unreadable (nothing, said plainly, when nothing was encrypted). */
export interface ShredSessionResult extends ShredReport {
  sessionId: string;
  keysDestroyed: number;
  /** The same in one sentence. */
  message: string;
}

/** Destroys a session's data key: its encrypted fields are unreadable from then on, on every read path. */
export class ShredSessionCommand extends Command<ShredSessionResult> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
  ) {
    super();
  }
}
