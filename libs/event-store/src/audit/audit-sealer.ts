import type { EventStore } from '../event-store';
import { sealLog } from './audit-log';
import type { SealStore } from './seal-store';

/**
 * Seals new events in the background, off the write path: an event is covered by the hash
 * chains about `intervalMs` after it commits. Errors are reported and retried next round.
 */
export class AuditSealer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly seals: SealStore,
    private readonly intervalMs: number,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.sealNow(), this.intervalMs);
    this.timer.unref();
  }

  /** One round now (or the one already running). */
  sealNow(): Promise<unknown> {
    this.running ??= sealLog(this.store, this.seals)
      .catch((error: Error) =>
        this.onError(
          `Could not seal new events into the audit chains (${error.message}); retrying in ${this.intervalMs} ms. \`rewind audit verify\` reports them as not sealed meanwhile.`,
        ),
      )
      .finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
