import type { EventStore } from '@rewind/event-store';
import { applyBatch, type BatchHooks } from './batch';
import type { WriterConnection } from './connection';
import { toProjectedEvent } from './projected-event';
import { selectProjections, type Projection } from './projections';
import { SharedLogReader } from './shared-log-reader';
import type { ReadModelDatabase } from './read-model-database';
import { projectionStatuses, type ProjectionStatus, type RunnerState } from './status';

export interface ProjectionLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const SILENT_LOGGER: ProjectionLogger = { log: () => undefined, warn: () => undefined, error: () => undefined };
const CONSOLE_LOGGER: ProjectionLogger = { log: () => undefined, warn: (m) => console.warn(m), error: (m) => console.error(m) };

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
  logger?: ProjectionLogger;
  hooks?: BatchHooks;
  /** Shares reads of the log between the runners of a process (the supervisor gives one). */
  reader?: SharedLogReader;
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one projection: reads the global log after the projection's checkpoint, in batches,
 * and applies each batch and its checkpoint in one transaction. One runner per projection
 * is active across processes: on PostgreSQL it holds a session-level advisory lock on its
 * own connection, on SQLite a lock within the process (one writer per file); the others
 * stand by and take over when the lock frees. Correctness does not rest on that lock: every
 * batch checks, under the checkpoint's row lock, that the checkpoint is still where its
 * events were read from.
 */
export class ProjectionRunner {
  private readonly batchSize: number;
  private readonly logger: ProjectionLogger;
  private connection: WriterConnection | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private leader = false;
  private state: RunnerState = 'stopped';
  private lastError: string | null = null;
  private wake: (() => void) | null = null;
  /** A poke that came while the runner was busy: its next pause is skipped. */
  private poked = false;
  private exclusive: Promise<unknown> = Promise.resolve();
  /** The checkpoint this runner last read or wrote. */
  private known = 0;
  private readonly waiters = new Set<{ position: number; resolve: () => void }>();

  constructor(
    readonly store: EventStore,
    readonly db: ReadModelDatabase,
    readonly projection: Projection,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.logger = options.logger ?? CONSOLE_LOGGER;
  }

  get name(): string {
    return this.projection.name;
  }

  /** Starts the background loop (idempotent). */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.runLoop();
  }

  /** Stops after the batch in progress commits, and releases the lock and the connection. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
    await this.exclusive.catch(() => undefined);
    await this.dropConnection();
    this.state = 'stopped';
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters.clear();
  }

  /** Wakes an idle runner now (e.g. after a write); a busy one skips its next pause. */
  poke(): void {
    if (this.wake) this.wake();
    else this.poked = true;
  }

  /** Applies at most one batch; resolves to the number of events applied (0: nothing new, or the checkpoint moved meanwhile). */
  runOnce(): Promise<number> {
    const next = this.exclusive.then(() => this.applyNextBatch());
    this.exclusive = next.catch(() => undefined);
    return next;
  }

  /**
   * Applies batches until the projection reaches `target` (default: the head of the log as
   * it is when called). On PostgreSQL a committed event becomes readable only once older
   * transactions have finished; a target beyond what becomes readable within `timeoutMs`
   * (default 60 s) is an error.
   */
  async catchUp(target?: number, timeoutMs = 60_000): Promise<number> {
    const goal = target ?? (await this.store.lastPosition());
    const deadline = Date.now() + timeoutMs;
    let applied = 0;
    while (this.known < goal) {
      const n = await this.runOnce();
      applied += n;
      if (n === 0 && this.known < goal) {
        if (Date.now() > deadline)
          throw new Error(`Projection "${this.name}" could not reach position ${goal} within ${timeoutMs} ms (it is at ${this.known}).`);
        await sleep(5);
      }
    }
    return applied;
  }

  /** Resolves true once the projection has applied `position`, false after `timeoutMs`. */
  async waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (this.known >= position) return true;
    const deadline = Date.now() + timeoutMs;
    this.poke();
    while (Date.now() < deadline) {
      const reached = new Promise<void>((resolve) => {
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
      await reached;
      if (this.known >= position) return true;
      // Another process's runner may be the active one: look at the checkpoint itself.
      const checkpoint = (await this.db.checkpoints()).find((c) => c.name === this.name);
      if (checkpoint) this.note(checkpoint.position);
      if (this.known >= position) return true;
    }
    return false;
  }

  runtime(): { state: RunnerState; lastError: string | null } {
    return { state: this.state, lastError: this.lastError };
  }

  async status(): Promise<ProjectionStatus> {
    const all = await projectionStatuses(this.store, this.db, (name) => (name === this.name ? this.runtime() : undefined));
    return all.find((s) => s.name === this.name)!;
  }

  private note(position: number): void {
    this.known = Math.max(this.known, position);
    for (const waiter of this.waiters) {
      if (this.known >= waiter.position) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  private async writer(): Promise<WriterConnection> {
    if (this.connection && !this.connection.healthy) await this.dropConnection();
    this.connection ??= await this.db.connect();
    return this.connection;
  }

  private async dropConnection(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    if (this.leader) {
      this.leader = false;
      await connection?.unlock('projection', this.name).catch(() => undefined);
    }
    await connection?.close().catch(() => undefined);
  }

  private async applyNextBatch(): Promise<number> {
    const connection = await this.writer();
    const d = connection.dialect;
    const from = (await connection.run(() => d.checkpoint(this.name))) ?? 0;
    // A rebuild's swap may have moved the checkpoint (either way): follow it.
    this.known = from;
    const events = this.options.reader
      ? await this.options.reader.read(from, this.batchSize)
      : (await this.store.readAll({ after: from, limit: this.batchSize })).map(toProjectedEvent);
    if (events.length === 0) {
      this.note(from);
      return 0;
    }
    const applied = await connection.transaction(
      () => applyBatch(d, [{ projection: this.projection, variant: 'live', checkpoint: this.name, from }], events, this.options.hooks),
      { durable: this.options.durable === true },
    );
    if (!applied) return 0;
    this.note(events[events.length - 1]!.position);
    return events.length;
  }

  private async idle(ms: number): Promise<void> {
    if (this.stopping) return;
    if (this.poked) {
      this.poked = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = null;
  }

  private async runLoop(): Promise<void> {
    let errorDelay = 100;
    while (!this.stopping) {
      try {
        const connection = await this.writer();
        if (!this.leader) {
          this.leader = await connection.tryLock('projection', this.name);
          if (!this.leader) {
            if (this.state !== 'standby') this.logger.log(`Projection "${this.name}": another runner is active; standing by.`);
            this.state = 'standby';
            await this.idle(this.options.standbyRetryMs ?? 2000);
            continue;
          }
          this.logger.log(`Projection "${this.name}": running from position ${this.known}.`);
        }
        this.state = 'active';
        const applied = await this.runOnce();
        if (this.lastError) this.logger.log(`Projection "${this.name}" recovered at position ${this.known}.`);
        this.lastError = null;
        errorDelay = 100;
        if (applied === 0) await this.idle(this.options.idleDelayMs ?? 250);
        else if (applied < this.batchSize) await this.idle(this.options.lingerMs ?? 50);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (message !== this.lastError) {
          this.logger.error(`Projection "${this.name}" failed at position ${this.known} and will retry in ${errorDelay} ms: ${message}`);
        }
        this.lastError = message;
        this.state = 'failing';
        if (this.connection && !this.connection.healthy) await this.dropConnection();
        await this.idle(errorDelay);
        errorDelay = Math.min(errorDelay * 2, this.options.maxErrorDelayMs ?? 10_000);
      }
    }
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
    const shared = { reader: new SharedLogReader(store), ...options };
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
