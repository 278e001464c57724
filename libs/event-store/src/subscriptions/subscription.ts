import type { StoredEvent } from '../event-store';
import type { CheckpointStore } from './checkpoint-store';

/**
 * Where a subscription's checkpoint lives. `in-handler`: the handler writes it in the
 * transaction that applies the batch (a read model), and `read` returns it; `store`: the loop
 * saves it in a CheckpointStore once the handler is done (at-least-once: a crash in between
 * hands the batch over again).
 */
export type CheckpointPolicy = { kind: 'in-handler'; read(): Promise<number> } | { kind: 'store'; store: CheckpointStore };

/** A lock that only one holder at a time gets (across processes where it needs to be). */
export interface ExclusiveLock {
  /** True when this holder has the lock (cheap when it already had it), false while another holds it. */
  tryAcquire(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * How many followers of one subscription run at once. `lock`: one, while it holds the lock
 * (a PostgreSQL advisory lock, or a lock within the process on SQLite); `lease`: one, while it
 * holds the lease of its CheckpointStore (renewed at a third of `ttlMs`, taken over once it
 * expires); `none`: every process runs its own (e.g. a per-process index).
 */
export type ExclusivityPolicy = { kind: 'none' } | { kind: 'lock'; lock: ExclusiveLock } | { kind: 'lease'; ttlMs?: number; owner?: string };

export interface LogBatch {
  /** The checkpoint the events were read after. */
  after: number;
  /** In global order, all after `after`. */
  events: readonly StoredEvent[];
}

/** A follower of the global log (Emmett's processor: a projector or a reactor). */
export interface LogSubscription {
  readonly name: string;
  readonly checkpoint: CheckpointPolicy;
  readonly exclusivity: ExclusivityPolicy;
  /**
   * Handles one batch, in order. Resolves to the position now handled (default: the last
   * event's), or null when nothing was handled because the checkpoint moved meanwhile (an
   * `in-handler` checkpoint that another writer advanced).
   */
  handle(batch: LogBatch): Promise<number | null | void>;
}

export type SubscriptionState = 'running' | 'standby' | 'stopped';

export interface SubscriptionStatus {
  name: string;
  /** running: this process follows the log; standby: another holds the lock or lease; stopped: not started here. */
  state: SubscriptionState;
  /** The last error, until a batch succeeds again. */
  lastError: string | null;
  /** The checkpoint (0: nothing handled yet). */
  position: number;
  /** Events after the checkpoint that a reader may see now: a count of events, not a difference of positions. */
  lag: number;
}
