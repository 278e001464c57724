import type { Logger } from '@rewind/config';
import type { RollbackSubscription } from './rollback-subscription';

/**
 * The periodic half of failover: every `intervalMs` (a third of the lease), the saga's
 * follower takes over the open rollbacks that no live process holds. A holder that died is
 * thus replaced at most a lease plus one interval after its last renewal.
 */
export class RollbackTakeover {
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<unknown> | undefined;
  private failing = false;

  constructor(
    private readonly subscription: Pick<RollbackSubscription, 'takeOver'>,
    private readonly intervalMs: number,
    private readonly logger?: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.scan(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a scan in progress (the saga's runs it started go on until the saga stops). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.scanning;
  }

  private scan(): Promise<unknown> {
    this.scanning ??= this.subscription
      .takeOver()
      .then(
        () => {
          if (this.failing) this.logger?.log('Looking for rollbacks to take over works again.');
          this.failing = false;
        },
        (error: unknown) => {
          if (!this.failing) {
            this.logger?.warn(
              `Could not look for rollbacks left without a live holder: ${(error as Error).message}. Retrying every ${this.intervalMs} ms; is the database reachable?`,
            );
          }
          this.failing = true;
        },
      )
      .finally(() => (this.scanning = undefined));
    return this.scanning;
  }
}
