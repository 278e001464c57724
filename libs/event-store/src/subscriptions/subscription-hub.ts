import type { EventStore } from '../event-store';
import { SharedLogReader } from './shared-log-reader';
import type { LogSubscription, SubscriptionStatus } from './subscription';
import { SubscriptionLoop, type SubscriptionLoopOptions } from './subscription-loop';

/**
 * Everything a process runs after events are stored, in one place: it holds the
 * subscriptions (read models, the memory index, the relay, the rollback saga), shares reads
 * of the log between them, and is poked by the write side after each commit so that
 * followers see it at once (polling is the fallback, e.g. for another process's commits).
 * A process creates one.
 */
export class SubscriptionHub {
  readonly reader: SharedLogReader;
  private readonly loops = new Map<string, SubscriptionLoop>();
  private started = false;

  constructor(
    readonly store: EventStore,
    private readonly defaults: Omit<SubscriptionLoopOptions, 'reader'> = {},
  ) {
    this.reader = new SharedLogReader(store);
  }

  /** Adds a subscription (started at once if the hub is); its options override the hub's defaults. */
  add(subscription: LogSubscription, options: SubscriptionLoopOptions = {}): SubscriptionLoop {
    if (this.loops.has(subscription.name)) throw new Error(`A subscription named "${subscription.name}" is already in this hub.`);
    const loop = new SubscriptionLoop(this.store, subscription, { ...this.defaults, reader: this.reader, ...options });
    this.loops.set(subscription.name, loop);
    if (this.started) loop.start();
    return loop;
  }

  /** Stops a subscription and takes it out of the hub. */
  async remove(name: string): Promise<void> {
    const loop = this.loops.get(name);
    this.loops.delete(name);
    await loop?.stop();
  }

  get(name: string): SubscriptionLoop | undefined {
    return this.loops.get(name);
  }

  get subscriptions(): readonly SubscriptionLoop[] {
    return [...this.loops.values()];
  }

  start(): void {
    this.started = true;
    for (const loop of this.loops.values()) loop.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.loops.values()].map((loop) => loop.stop()));
  }

  /** There is news in the log (the write side calls it after each commit): every follower looks now. */
  poke(): void {
    for (const loop of this.loops.values()) loop.poke();
  }

  async status(): Promise<SubscriptionStatus[]> {
    return Promise.all([...this.loops.values()].map((loop) => loop.status()));
  }
}
