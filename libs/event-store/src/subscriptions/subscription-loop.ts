import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import { silentLogger, type Logger } from '@rewind/config';
import type { EventStore, StoredEvent } from '../event-store';
import { batchBounds, nextBatchSize, type BatchBounds } from './batch-size';
import { countEventsAfter } from './lag';
import { SharedLogReader } from './shared-log-reader';
import type { LogSubscription, SubscriptionState, SubscriptionStatus } from './subscription';

/**
 * Thrown by a handler to end its loop at once, as if the process had died: no checkpoint
 * saved for the batch, and the lock or lease kept until it expires (tests of crash recovery).
 */
export class StopFollowing extends Error {}

/** The longest an in-handler checkpoint goes unread while batches succeed (see handleNextBatch). */
const IN_HANDLER_CHECKPOINT_RECHECK_MS = 1000;

export interface SubscriptionLoopOptions {
  /** Events per batch (default 1000). */
  batchSize?: number;
  /**
   * The largest batch while a backlog lasts (default: batchSize, a fixed size): after a full
   * batch the next is twice as large, up to this; after one that was not, batchSize again.
   */
  maxBatchSize?: number;
  /** Pause between polls once caught up, in ms (default 250): the fallback, as `poke()` wakes the loop at once. */
  idleDelayMs?: number;
  /**
   * Pause after a batch that was not full, in ms (default 50). `poke()` does not cut it short:
   * under a steady stream of writes it lets a batch gather many events instead of running the
   * handler once per commit, in competition with the writes (W3 over HTTP took twice as long
   * when every commit woke every follower).
   */
  lingerMs?: number;
  /** How often a standby loop tries to take the lock or lease, in ms (default 2000; a third of the lease at most). */
  standbyRetryMs?: number;
  /** Backoff after errors (cockatiel's exponential backoff with decorrelated jitter; defaults 100 ms to 10 s). */
  backoff?: { initialDelayMs?: number; maxDelayMs?: number };
  logger?: Logger;
  /** Shares reads of the log between the subscriptions of a process (the hub gives one). */
  reader?: SharedLogReader;
}

/**
 * Follows the global log for one subscription: takes the lock or lease its exclusivity policy
 * asks for (standing by while another process holds it), reads batches after the checkpoint,
 * hands them to the subscription's handler, and moves the checkpoint. Polling is the fallback:
 * `poke()` (after a commit) wakes it at once. Errors back off and are retried forever; the
 * checkpoint only moves past a batch once it is handled, so nothing is skipped.
 */
export class SubscriptionLoop {
  readonly name: string;
  private readonly batchBounds: BatchBounds;
  /** The size of the next batch (see nextBatchSize). */
  private batchSize: number;
  private readonly logger: Logger;
  private readonly reader: SharedLogReader;
  private readonly backoffs: ExponentialBackoff<unknown>;
  private readonly owner: string;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private exclusive = false;
  private leaseCheckedAt = 0;
  private state: SubscriptionState = 'stopped';
  private lastError: string | null = null;
  private wake: (() => void) | null = null;
  /** A poke that came while the loop was busy or lingering: its next idle pause is skipped. */
  private poked = false;
  /** In the pause after a batch that was not full: pokes wait for it to end. */
  private lingering = false;
  /** A reader waits (see hurry): the next pause, linger included, is skipped. */
  private hurried = false;
  /** A wake-up is scheduled (pokes coalesce into one). */
  private wakeScheduled = false;
  /** Pokes do not cut a backoff short (a stream of commits would defeat it); `stop()` does. */
  private backingOff = false;
  /** Batches run one at a time, whether from the loop or `runOnce`. */
  private serial: Promise<unknown> = Promise.resolve();
  /** The checkpoint this loop last read or wrote (-1: not loaded yet). */
  private position = -1;
  /** When an in-handler checkpoint was last read (0: read it before the next batch). */
  private checkpointReadAt = 0;
  private readonly waiters = new Set<{ position: number; resolve: () => void }>();

  constructor(
    readonly store: EventStore,
    readonly subscription: LogSubscription,
    private readonly options: SubscriptionLoopOptions = {},
  ) {
    this.name = subscription.name;
    this.batchBounds = batchBounds(options.batchSize ?? 1000, options.maxBatchSize ?? options.batchSize ?? 1000);
    this.batchSize = this.batchBounds.min;
    this.logger = options.logger ?? silentLogger;
    this.reader = options.reader ?? new SharedLogReader(store);
    this.backoffs = new ExponentialBackoff({ initialDelay: options.backoff?.initialDelayMs ?? 100, maxDelay: options.backoff?.maxDelayMs ?? 10_000 });
    const exclusivity = subscription.exclusivity;
    this.owner = (exclusivity.kind === 'lease' && exclusivity.owner) || `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    if (exclusivity.kind === 'lease' && subscription.checkpoint.kind !== 'store') {
      throw new Error(`Subscription "${this.name}": a lease lives in a CheckpointStore; give it the checkpoint policy { kind: 'store' }.`);
    }
  }

  /** The checkpoint as this process last saw it (0 before the first read). */
  get checkpoint(): number {
    return Math.max(0, this.position);
  }

  get running(): boolean {
    return this.loop !== null;
  }

  /** Resolves when the loop has ended (stopped, or a handler threw StopFollowing). */
  get done(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /** Starts following the log in the background (idempotent). */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Stops after the batch in progress, and gives the lock or lease up so that a standby takes over. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
    await this.serial.catch(() => undefined);
    await this.giveUpExclusivity();
    this.state = 'stopped';
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters.clear();
  }

  /** Wakes an idle loop now (there is news in the log); a busy one skips its next pause. */
  poke(): void {
    this.wakeUp(false);
  }

  /** Someone waits for this follower (read your writes): a lingering loop runs now too. */
  private hurry(): void {
    this.wakeUp(true);
  }

  private wakeUp(evenLingering: boolean): void {
    this.reader.forgetShortPages();
    if (!this.wake || this.backingOff || (this.lingering && !evenLingering)) {
      this.poked = true;
      if (evenLingering) this.hurried = true;
      return;
    }
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    // After the current I/O callbacks: the commit's own answer goes out before a follower reads.
    setImmediate(() => {
      this.wakeScheduled = false;
      this.wake?.();
    });
  }

  /** Handles at most one batch, ignoring exclusivity (tests, catch-up); resolves to the number of events handled. */
  runOnce(): Promise<number> {
    return this.runBatch().then((batch) => batch.handled);
  }

  /** The size the next batch asks for (batchSize, or more while a backlog lasts). */
  get nextBatchSize(): number {
    return this.batchSize;
  }

  /** One batch; resolves to the events handled and whether the batch was full (a backlog: no linger, a larger next batch). */
  private runBatch(): Promise<{ handled: number; full: boolean }> {
    const next = this.serial.then(async () => {
      const limit = this.batchSize;
      const handled = await this.handleNextBatch(limit);
      this.batchSize = nextBatchSize(limit, handled, this.batchBounds);
      return { handled, full: handled >= limit };
    });
    this.serial = next.catch(() => undefined);
    return next;
  }

  /**
   * Handles batches until the checkpoint reaches `target` (default: the head of the log now).
   * On PostgreSQL a committed event becomes readable only once older transactions have
   * finished; a target not readable within `timeoutMs` (default 60 s) is an error.
   */
  async catchUp(target?: number, timeoutMs = 60_000): Promise<number> {
    const goal = target ?? (await this.store.lastPosition());
    const deadline = Date.now() + timeoutMs;
    let handled = 0;
    while (this.checkpoint < goal) {
      const n = await this.runOnce();
      handled += n;
      if (n === 0 && this.checkpoint < goal) {
        if (Date.now() > deadline)
          throw new Error(`Subscription "${this.name}" could not reach position ${goal} within ${timeoutMs} ms (it is at ${this.checkpoint}).`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    return handled;
  }

  /**
   * Resolves true once the checkpoint reaches `position` (whichever process moved it), false
   * after `timeoutMs`.
   */
  async waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (this.checkpoint >= position) return true;
    const deadline = Date.now() + timeoutMs;
    this.hurry();
    while (Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const waiter = { position, resolve };
        this.waiters.add(waiter);
        setTimeout(
          () => {
            this.waiters.delete(waiter);
            resolve();
          },
          Math.min(100, Math.max(1, deadline - Date.now())),
        );
      });
      if (this.checkpoint >= position) return true;
      // Another process may be the one following: look at the checkpoint itself.
      this.note(await this.loadCheckpoint());
      if (this.checkpoint >= position) return true;
    }
    return false;
  }

  /** This process's state and last error, without a read. */
  runtime(): { state: SubscriptionState; lastError: string | null } {
    return { state: this.state, lastError: this.lastError };
  }

  async status(): Promise<SubscriptionStatus> {
    const position = await this.loadCheckpoint();
    return { name: this.name, ...this.runtime(), position, lag: await countEventsAfter(this.store, position) };
  }

  private loadCheckpoint(): Promise<number> {
    const checkpoint = this.subscription.checkpoint;
    return checkpoint.kind === 'in-handler' ? checkpoint.read() : checkpoint.store.load(this.name);
  }

  private note(position: number): void {
    this.position = Math.max(this.position, position);
    for (const waiter of this.waiters) {
      if (this.position >= waiter.position) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  private async handleNextBatch(limit: number): Promise<number> {
    const checkpoint = this.subscription.checkpoint;
    // An in-handler checkpoint may move behind this loop's back (a rebuild's swap). The handler
    // checks it under lock, so a batch read from a stale position is refused, never applied:
    // it is read again after such a refusal, after an error, and at least every second (a swap
    // while the log is quiet), not before every batch (a round trip per follower run under load).
    if (checkpoint.kind === 'in-handler') {
      if (this.checkpointReadAt === 0 || Date.now() - this.checkpointReadAt >= IN_HANDLER_CHECKPOINT_RECHECK_MS) {
        this.position = await checkpoint.read();
        this.checkpointReadAt = Date.now();
      }
    } else if (this.position < 0) this.position = await checkpoint.store.load(this.name);
    const from = this.position;
    const events: readonly StoredEvent[] = await this.reader.read(from, limit);
    if (events.length === 0) {
      this.note(from);
      return 0;
    }
    const handled = await this.subscription.handle({ after: from, events });
    if (handled === null) {
      this.checkpointReadAt = 0;
      return 0;
    }
    const reached = handled ?? events[events.length - 1]!.globalPosition;
    if (checkpoint.kind === 'store') await checkpoint.store.save(this.name, reached);
    this.note(reached);
    return events.length;
  }

  /** Takes or keeps the lock or lease; false while another holder has it. */
  private async holdExclusivity(): Promise<boolean> {
    const exclusivity = this.subscription.exclusivity;
    if (exclusivity.kind === 'none') return true;
    let held: boolean;
    if (exclusivity.kind === 'lock') held = await exclusivity.lock.tryAcquire();
    else {
      const ttlMs = exclusivity.ttlMs ?? 10_000;
      if (this.exclusive && Date.now() - this.leaseCheckedAt < ttlMs / 3) return true;
      const checkpoint = this.subscription.checkpoint;
      held = checkpoint.kind === 'store' && (await checkpoint.store.acquire(this.name, this.owner, ttlMs));
      this.leaseCheckedAt = Date.now();
    }
    if (held && !this.exclusive) {
      // Another holder may have moved the checkpoint while this one stood by.
      this.position = await this.loadCheckpoint();
      this.logger.log(`Subscription "${this.name}": running from position ${this.position}.`);
    } else if (!held && this.exclusive) {
      this.logger.warn(`Subscription "${this.name}": another process took over; standing by.`);
    } else if (!held && this.state !== 'standby') {
      this.logger.log(`Subscription "${this.name}": another process is following the log; standing by.`);
    }
    this.exclusive = held;
    return held;
  }

  private async giveUpExclusivity(): Promise<void> {
    const exclusivity = this.subscription.exclusivity;
    const checkpoint = this.subscription.checkpoint;
    if (exclusivity.kind === 'lock') await exclusivity.lock.release().catch(() => undefined);
    else if (exclusivity.kind === 'lease' && this.exclusive && checkpoint.kind === 'store') {
      await checkpoint.store.release(this.name, this.owner).catch(() => undefined);
    }
    this.exclusive = false;
    this.leaseCheckedAt = 0;
  }

  private async pause(ms: number, lingering = false): Promise<void> {
    if (this.stopping) return;
    if ((this.poked && !lingering) || (this.hurried && !this.backingOff)) {
      this.poked = false;
      this.hurried = false;
      return;
    }
    this.lingering = lingering;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = null;
    this.lingering = false;
  }

  private async run(): Promise<void> {
    let backoff: IBackoff<unknown> | undefined;
    while (!this.stopping) {
      try {
        if (!(await this.holdExclusivity())) {
          this.state = 'standby';
          const lease = this.subscription.exclusivity.kind === 'lease' ? (this.subscription.exclusivity.ttlMs ?? 10_000) / 3 : Infinity;
          await this.pause(Math.min(this.options.standbyRetryMs ?? 2000, lease));
          continue;
        }
        this.state = 'running';
        const { handled, full } = await this.runBatch();
        if (this.lastError) this.logger.log(`Subscription "${this.name}" recovered at position ${this.checkpoint}.`);
        this.lastError = null;
        backoff = undefined;
        if (handled === 0) await this.pause(this.options.idleDelayMs ?? 250);
        else if (!full) await this.pause(this.options.lingerMs ?? 50, true);
      } catch (error) {
        if (error instanceof StopFollowing) {
          this.state = 'stopped';
          return;
        }
        backoff = (backoff ?? this.backoffs).next(undefined);
        const message = error instanceof Error ? error.message : String(error);
        if (message !== this.lastError) {
          this.logger.error(
            `Subscription "${this.name}" failed at position ${this.checkpoint} and will retry in ${Math.round(backoff.duration)} ms: ${message}`,
          );
        }
        this.lastError = message;
        this.checkpointReadAt = 0;
        this.poked = false;
        this.backingOff = true;
        await this.pause(backoff.duration);
        this.backingOff = false;
      }
    }
  }
}
