import { context, type Context } from '@opentelemetry/api';
import type { Logger } from '@rewind/config';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import type { CheckpointPolicy, CheckpointStore, LogBatch, LogSubscription } from '@rewind/event-store/subscriptions';
import { sessionIdFromStream } from '@rewind/engine';
import type { RollbackLeases } from './leases/rollback-leases';
import type { RollbackRef } from './leases/rollback-lease-store';
import type { RollbackSaga } from './rollback-saga';

/** The subscription's name, and the key of its saved checkpoint (unchanged, so a saved scan position stays valid). */
export const SAGA_CHECKPOINT = 'saga:rollbacks';

const TRIGGERS = new Set(['RollbackRequested', 'CompensationRetryRequested', 'CompensationResolved']);

const candidateKey = (tenantId: string, rollbackId: string) => `${tenantId}\u0000${rollbackId}`;

/** The rollback an event gives the saga work on, if any. */
function rollbackToRun(event: StoredEvent): string | null {
  if (!TRIGGERS.has(event.type)) return null;
  const data = event.data as { rollbackId: string; plan?: { action: string }[] };
  // A rollback with nothing to compensate completes in the commit that requests it.
  if (event.type === 'RollbackRequested' && !data.plan?.some((item) => item.action === 'compensate')) return null;
  return data.rollbackId;
}

export interface RollbackSubscriptionOptions {
  /** Where the restart scan starts from (saved as the oldest open rollback's position − 1); none: from the start of the log. */
  checkpoints?: Pick<CheckpointStore, 'load' | 'save'>;
  /**
   * Resume the rollbacks left in progress in the log up to the head at start-up (default true);
   * false: only run the rollbacks this process's commits ask for, and save no checkpoint.
   */
  resume?: boolean;
  /** Told about each rollback the start-up scan resumes. */
  logger?: Logger;
  /**
   * Several processes on one database (the saga's leases): every open rollback of any process
   * is a candidate, taken over by `takeOver()` once no live process holds its lease.
   */
  leases?: RollbackLeases;
}

/** A rollback some process may have to carry out. */
interface Candidate extends RollbackRef {
  sessionId: string;
  /** When this process first saw it needing a holder (0: in the log at start-up, free to take at once). */
  since: number;
}

/**
 * The rollback saga as a follower of the log: kicks rollbacks from `RollbackRequested`,
 * `CompensationRetryRequested` and `CompensationResolved`. The commit that asks for one pokes
 * the hub, so the rollback starts at once.
 *
 * Who runs which rollback is kept as it was before the hub: a process runs the rollbacks its
 * own commits ask for (it has the inline compensators and the workspace channel the request
 * was made against; another process may not), and at start-up every process resumes the
 * rollbacks left in progress in the log. So exclusivity is `none` and each process follows
 * the whole log, but after the start-up scan it only kicks rollbacks in `noteCommitted`'s
 * set. Two processes resuming the same rollback after a restart is as safe as it was with
 * `resumeAll`: each compensation's idempotency key is the same on every attempt, and a
 * record that another run made first is a conflict the saga re-reads past.
 *
 * With leases (several processes on PostgreSQL) a run needs its rollback's lease, so one
 * process at a time carries each out, and every process keeps the open rollbacks of any
 * process as candidates: `takeOver()` (at start-up, then every third of the lease) runs those
 * that no live process holds, so a rollback whose process died is finished by a live one.
 *
 * Checkpoint: the read position is kept in memory (`in-handler`); what is saved is the oldest
 * open (not yet `RollbackCompleted`: in progress or needing attention) rollback's position − 1,
 * so a restart re-scans from there and resumes unfinished rollbacks.
 */
export class RollbackSubscription implements LogSubscription {
  readonly name = SAGA_CHECKPOINT;
  readonly exclusivity = { kind: 'none' } as const;
  readonly checkpoint: CheckpointPolicy = { kind: 'in-handler', read: () => this.readPosition() };
  /** How many in-progress rollbacks the start-up scan resumed (with leases: that this process took over). */
  resumed = 0;
  /** Where this process has read to (-1: not loaded yet). */
  private scanned = -1;
  /** The saved checkpoint this process started from: the saved one never goes below it. */
  private floor = 0;
  /** Events up to here were in the log at start-up: the restart scan resumes any process's rollbacks among them. */
  private resumeUpTo = 0;
  /** The checkpoint last saved by this process. */
  private saved = -1;
  /**
   * Rollbacks this process's commits asked for, until the subscription sees them, with the trace
   * context of the commit: the rollback's spans continue the request's trace.
   */
  private readonly local = new Map<string, Context>();
  /** Rollbacks the start-up scan has looked at. */
  private readonly checked = new Set<string>();
  /**
   * With leases: rollbacks of any process in progress as far as this process knows, until a run
   * here sees them stop (completed, or needing attention: a later retry or resolution adds
   * them again) or the log completes them.
   */
  private readonly candidates = new Map<string, Candidate>();
  private takingOver: Promise<number> | undefined;
  /**
   * Rollbacks of any process not completed in the log (in progress or needing attention): id →
   * position of the first event seen. Read from the log alone, so every process saves the same
   * checkpoint to the shared store, never past another process's open rollback.
   */
  private readonly open = new Map<string, number>();

  constructor(
    private readonly saga: RollbackSaga,
    private readonly store: EventStore,
    private readonly options: RollbackSubscriptionOptions = {},
  ) {}

  /** The write side calls it with each commit's events, before poking the hub. */
  noteCommitted(events: readonly StoredEvent[]): void {
    for (const event of events) {
      const rollbackId = rollbackToRun(event);
      if (rollbackId) this.local.set(rollbackId, context.active());
    }
  }

  async handle(batch: LogBatch): Promise<number> {
    let takeOverNow = false;
    for (const event of batch.events) {
      if (event.type === 'RollbackCompleted') {
        this.open.delete((event.data as { rollbackId: string }).rollbackId);
        this.candidates.delete(candidateKey(event.metadata.tenantId, (event.data as { rollbackId: string }).rollbackId));
        continue;
      }
      const rollbackId = rollbackToRun(event);
      if (!rollbackId) continue;
      if (!this.open.has(rollbackId)) this.open.set(rollbackId, event.globalPosition);
      const tenantId = event.metadata.tenantId;
      const sessionId = sessionIdFromStream(event.streamId);
      const requestedHere = this.local.get(rollbackId);
      if (this.options.leases && this.options.resume !== false) {
        // Any process's: taken over when no live process holds it (at once if it was in the log at start-up;
        // otherwise after a grace that lets the process that asked for it take its lease first).
        const inLogAtStart = event.globalPosition <= this.resumeUpTo;
        this.candidates.set(candidateKey(tenantId, rollbackId), { tenantId, rollbackId, sessionId, since: inLogAtStart ? 0 : Date.now() });
        takeOverNow ||= inLogAtStart && !requestedHere;
      }
      if (requestedHere) {
        this.local.delete(rollbackId);
        context.with(requestedHere, () =>
          this.options.leases ? this.carryOut(tenantId, sessionId, rollbackId) : this.saga.kick(tenantId, sessionId, rollbackId),
        );
      } else if (this.options.leases) {
        continue;
      } else if (event.globalPosition <= this.resumeUpTo && !this.checked.has(rollbackId)) {
        this.checked.add(rollbackId);
        if ((await this.saga.statusOf(tenantId, sessionId, rollbackId)) === 'in_progress') {
          this.resumed++;
          this.options.logger?.log(`Resuming rollback ${rollbackId}, left in progress when a process stopped.`);
          this.saga.kick(tenantId, sessionId, rollbackId);
        }
      }
    }
    this.scanned = batch.events[batch.events.length - 1]!.globalPosition;
    await this.saveCheckpoint(batch.events.some((event) => TRIGGERS.has(event.type) || event.type === 'RollbackCompleted'));
    // Rollbacks left in progress when processes stopped: resumed now, not at the first tick of the takeover timer.
    if (takeOverNow) {
      await this.takeOver().catch((error: unknown) =>
        this.options.logger?.warn(
          `Could not take over the rollbacks left in progress yet (${(error as Error).message}); trying again every ${Math.round((this.options.leases?.ttlMs ?? 0) / 3)} ms.`,
        ),
      );
    }
    return this.scanned;
  }

  /**
   * With leases: takes the lease of every candidate that no live process holds (its holder died,
   * stopped, or lost the database) and carries it out here. Called every third of the lease by
   * RollbackTakeover, and after the start-up scan; resolves to how many rollbacks it started.
   */
  takeOver(graceMs = this.options.leases?.ttlMs ?? 0): Promise<number> {
    // One at a time (the timer and the start-up scan): a rollback is taken and started once.
    this.takingOver ??= this.takeOverDue(graceMs).finally(() => (this.takingOver = undefined));
    return this.takingOver;
  }

  private async takeOverDue(graceMs: number): Promise<number> {
    const leases = this.options.leases;
    if (!leases) return 0;
    const now = Date.now();
    const due = [...this.candidates.values()].filter((c) => c.since <= now - graceMs && !this.saga.isRunning(c.tenantId, c.rollbackId));
    if (due.length === 0) return 0;
    const taken = await leases.take(due);
    for (const ref of taken) {
      const candidate = this.candidates.get(candidateKey(ref.tenantId, ref.rollbackId));
      if (!candidate) {
        await leases.release(ref); // completed meanwhile
        continue;
      }
      this.resumed++;
      this.options.logger?.log(
        `Carrying on rollback ${ref.rollbackId}: no live process held it (${candidate.since === 0 ? 'left in progress when a process stopped' : 'its process stopped or died'}).`,
      );
      this.carryOut(candidate.tenantId, candidate.sessionId, candidate.rollbackId);
    }
    return taken.length;
  }

  /** Runs the rollback in the background; once a run here sees it stopped for good (completed, or waiting for an operator), it is no longer a candidate until the log says otherwise. */
  private carryOut(tenantId: string, sessionId: string, rollbackId: string): void {
    const key = candidateKey(tenantId, rollbackId);
    const candidate = this.candidates.get(key);
    this.saga
      .run(tenantId, sessionId, rollbackId)
      .then((record) => {
        if (record && record.status !== 'in_progress' && this.candidates.get(key) === candidate) this.candidates.delete(key);
      })
      .catch((error: unknown) =>
        this.options.logger?.warn(`rollback ${rollbackId} stopped on an error; a process takes it over again within seconds: ${(error as Error).message}`),
      );
  }

  private async readPosition(): Promise<number> {
    if (this.scanned < 0) {
      if (this.options.resume === false) {
        this.scanned = await this.store.lastPosition();
      } else {
        this.floor = (await this.options.checkpoints?.load(this.name)) ?? 0;
        this.resumeUpTo = await this.store.lastPosition();
        this.scanned = this.floor;
      }
    }
    return this.scanned;
  }

  private async saveCheckpoint(sawRollbacks: boolean): Promise<void> {
    if (this.options.resume === false || !this.options.checkpoints) return;
    const oldestOpen = Math.min(...this.open.values());
    const position = Number.isFinite(oldestOpen) ? Math.max(this.floor, oldestOpen - 1) : this.scanned;
    // Every commit pokes a batch: write only when it moves, and past rollback-free batches only now and then
    // (it bounds the restart scan; nothing is lost by saving it late).
    if (position === this.saved || (!sawRollbacks && this.saved >= 0 && position - this.saved < 1000)) return;
    await this.options.checkpoints.save(this.name, position);
    this.saved = position;
  }
}
