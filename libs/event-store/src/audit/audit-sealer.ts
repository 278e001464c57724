import type { EventStore } from '../event-store';
import { sealLog } from './audit-log';
import type { SealStore } from './seal-store';

/**
 * Seals events in the background, off the write path. On SQLite and PostgreSQL every event is
 * linked as it is written, so this only seals the events written before the upgrade to links
 * (those of the last second before the old version stopped) and then stops for good. On a
 * store without links (EventStoreDB) an event is sealed about `intervalMs` after it commits.
 * Errors are reported and retried next round.
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
    void this.sealNow();
  }

  /** One round now (or the one already running). */
  sealNow(): Promise<unknown> {
    this.running ??= sealLog(this.store, this.seals)
      .then((outcome) => {
        if (outcome.done && this.timer) {
          clearInterval(this.timer);
          this.timer = null;
        }
      })
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
