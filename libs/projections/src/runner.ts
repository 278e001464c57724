import type { Logger } from '@rewind/config';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import { SubscriptionHub, SubscriptionLoop, type ExclusiveLock, type LogBatch, type LogSubscription } from '@rewind/event-store/subscriptions';
import { applyBatch, type BatchHooks } from './batch';
import type { WriterConnection } from './connection';
import { toProjectedEvent, type ProjectedEvent } from './projected-event';
import { selectProjections, type Projection } from './projections';
import type { ReadModelDatabase } from './read-model-database';
import { projectionStatuses, type ProjectionStatus, type RunnerState } from './status';

/** @deprecated The one Logger of @rewind/config. */
export type ProjectionLogger = Logger;

export const SILENT_LOGGER: Logger = { log: () => undefined, warn: () => undefined, error: () => undefined };
const CONSOLE_LOGGER: Logger = { log: () => undefined, warn: (m) => console.warn(m), error: (m) => console.error(m) };

export interface ProjectionRunnerOptions {
  /** Events per transaction (default 1000). */
  batchSize?: number;
  /** Pause between polls once caught up, in ms (default 250); `poke()` wakes the runner early. */
  idleDelayMs?: number;
  /**
   * Pause after a batch that was not full, in ms (default 50; `poke()` wakes the runner early, so
   * a query waiting for its writes does not wait for it). Under a steady stream of writes it lets
   * a batch gather many events instead of committing one transaction per few events.
   */
  lingerMs?: number;
  /** How often a standby runner tries to take over, in ms (default 2000). */
  standbyRetryMs?: number;
  /** Longest pause after repeated errors, in ms (default 10 000). */
  maxErrorDelayMs?: number;
  logger?: Logger;
  hooks?: BatchHooks;
  /** The process's subscription hub: runners follow the log through it (shared reads, woken by commits). */
  hub?: SubscriptionHub;
  /**
   * Whether each batch's commit waits for the disk (default false; true: SQLite
   * synchronous=FULL, PostgreSQL synchronous_commit on). Not waiting is safe: read models are
   * derived, and a batch lost to a power cut takes its checkpoint with it and is applied again
   * from the (durable) event log at start (queries wait, up to a second, for their projection
   * to reach the head of the log). Waiting costs a disk flush per batch that the appends' own commits queue
   * behind (they share the WAL), and on SQLite blocks the process's event loop.
   */
  durable?: boolean;
}

/** Pages of the shared reader converted once for all the projections that read them. */
const converted = new WeakMap<readonly StoredEvent[], ProjectedEvent[]>();
function projected(events: readonly StoredEvent[]): ProjectedEvent[] {
  let page = converted.get(events);
  if (!page) converted.set(events, (page = events.map(toProjectedEvent)));
  return page;
}

/**
 * One projection as a subscription of the log: each batch and its checkpoint are applied in
 * one transaction on the writer connection, which also holds the lock (on PostgreSQL a
 * session-level advisory lock, on SQLite a lock within the process: one writer per file).
 * Correctness does not rest on that lock: every batch checks, under the checkpoint's row
 * lock, that the checkpoint is still where its events were read from.
 */
class ProjectionSubscription implements LogSubscription, ExclusiveLock {
  /**
   * Read on the read models' shared pool, not the writer connection: waitFor and status read it
   * while a batch's transaction runs on the writer (pg's "client.query() when the client is
   * already executing a query" on every replica, the read queued into the batch's transaction),
   * and a process that does not run the projection (the API beside the workers) took a writer
   * connection per projection just to read it, and held them.
   */
  readonly checkpoint = { kind: 'in-handler' as const, read: () => this.db.checkpoint(this.name) };
  readonly exclusivity = { kind: 'lock' as const, lock: this };
  private connection: WriterConnection | null = null;
  private leader = false;
  /** The writer connection answers one caller at a time (and two callers never open two). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: ReadModelDatabase,
    private readonly projection: Projection,
    private readonly options: ProjectionRunnerOptions,
  ) {}

  get name(): string {
    return this.projection.name;
  }

  handle(batch: LogBatch): Promise<number | null> {
    return this.serially(async () => {
      const connection = await this.writer();
      const events = projected(batch.events);
      const applied = await connection.transaction(
        () =>
          applyBatch(
            connection.dialect,
            [{ projection: this.projection, variant: 'live', checkpoint: this.name, from: batch.after }],
            events,
            this.options.hooks,
          ),
        { durable: this.options.durable === true },
      );
      return applied ? events[events.length - 1]!.position : null;
    });
  }

  tryAcquire(): Promise<boolean> {
    return this.serially(async () => {
      const connection = await this.writer();
      if (!this.leader) this.leader = await connection.tryLock('projection', this.name);
      return this.leader;
    });
  }

  /** Unlocks and closes the writer connection. */
  release(): Promise<void> {
    return this.serially(() => this.closeWriter());
  }

  /** Runs `work` once the connection's previous user is done. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.queue.then(work);
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async closeWriter(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    if (this.leader) {
      this.leader = false;
      await connection?.unlock('projection', this.name).catch(() => undefined);
    }
    await connection?.close().catch(() => undefined);
  }

  /** The writer connection; a lost one (its PostgreSQL locks went with it) is replaced. Call it serially. */
  private async writer(): Promise<WriterConnection> {
    if (this.connection && !this.connection.healthy) await this.closeWriter();
    this.connection ??= await this.db.connect();
    return this.connection;
  }
}

/**
 * Runs one projection: follows the global log after the projection's checkpoint through a
 * subscription of the process's hub, and applies each batch and its checkpoint in one
 * transaction. One runner per projection is active across processes; the others stand by
 * and take over when the lock frees.
 */
export class ProjectionRunner {
  readonly loop: SubscriptionLoop;

  constructor(
    readonly store: EventStore,
    readonly db: ReadModelDatabase,
    readonly projection: Projection,
    options: ProjectionRunnerOptions = {},
  ) {
    const subscription = new ProjectionSubscription(db, projection, options);
    const loopOptions = {
      logger: options.logger ?? CONSOLE_LOGGER,
      ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
      ...(options.idleDelayMs !== undefined ? { idleDelayMs: options.idleDelayMs } : {}),
      ...(options.lingerMs !== undefined ? { lingerMs: options.lingerMs } : {}),
      ...(options.standbyRetryMs !== undefined ? { standbyRetryMs: options.standbyRetryMs } : {}),
      backoff: { initialDelayMs: 100, maxDelayMs: options.maxErrorDelayMs ?? 10_000 },
    };
    this.loop = options.hub ? options.hub.add(subscription, loopOptions) : new SubscriptionLoop(store, subscription, loopOptions);
  }

  get name(): string {
    return this.projection.name;
  }

  /** Starts the background loop (idempotent). */
  start(): void {
    this.loop.start();
  }

  /** Stops after the batch in progress commits, and releases the lock and the connection. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Wakes an idle runner now (e.g. after a write); a busy one skips its next pause. */
  poke(): void {
    this.loop.poke();
  }

  /** Applies at most one batch; resolves to the number of events applied (0: nothing new, or the checkpoint moved meanwhile). */
  runOnce(): Promise<number> {
    return this.loop.runOnce();
  }

  /**
   * Applies batches until the projection reaches `target` (default: the head of the log as
   * it is when called). On PostgreSQL a committed event becomes readable only once older
   * transactions have finished; a target beyond what becomes readable within `timeoutMs`
   * (default 60 s) is an error.
   */
  catchUp(target?: number, timeoutMs = 60_000): Promise<number> {
    return this.loop.catchUp(target, timeoutMs);
  }

  /** Resolves true once the projection has applied `position` (whichever process's runner applied it), false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    return this.loop.waitFor(position, timeoutMs);
  }

  runtime(): { state: RunnerState; lastError: string | null } {
    const { state, lastError } = this.loop.runtime();
    return { state: state === 'running' ? (lastError ? 'failing' : 'active') : state, lastError };
  }

  async status(): Promise<ProjectionStatus> {
    const all = await projectionStatuses(this.store, this.db, (name) => (name === this.name ? this.runtime() : undefined));
    return all.find((s) => s.name === this.name)!;
  }
}

/** The runners of several projections (all by default), started and stopped together. */
export class ProjectionSupervisor {
  readonly runners: ReadonlyMap<string, ProjectionRunner>;

  constructor(
    readonly store: EventStore,
    readonly db: ReadModelDatabase,
    options: ProjectionRunnerOptions & { projections?: string[] } = {},
  ) {
    // Without the process's hub the runners still share one (reads of the log, pokes).
    const shared = { ...options, hub: options.hub ?? new SubscriptionHub(store) };
    this.runners = new Map(selectProjections(options.projections).map((p) => [p.name, new ProjectionRunner(store, db, p, shared)]));
  }

  runner(name: string): ProjectionRunner {
    const runner = this.runners.get(name);
    if (!runner) throw new Error(`No runner for projection "${name}".`);
    return runner;
  }

  start(): void {
    for (const runner of this.runners.values()) runner.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.runners.values()].map((r) => r.stop()));
  }

  poke(): void {
    for (const runner of this.runners.values()) runner.poke();
  }

  /** Catches every projection up to `target` (default: the head of the log now). */
  async catchUp(target?: number): Promise<number> {
    const goal = target ?? (await this.store.lastPosition());
    let total = 0;
    for (const runner of this.runners.values()) total += await runner.catchUp(goal);
    return total;
  }

  async status(): Promise<ProjectionStatus[]> {
    return projectionStatuses(this.store, this.db, (name) => this.runners.get(name)?.runtime());
  }
}
