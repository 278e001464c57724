import type { ProjectedEvent } from './projected-event';
import type { Projection } from './projections';
import type { Dialect, Step, TableVariant } from './sql';

/** Where one projection's share of a batch goes. */
export interface BatchTarget {
  projection: Projection;
  variant: TableVariant;
  /** The checkpoint row: the projection's name, or `<name>__rebuild` for a rebuild's shadow tables. */
  checkpoint: string;
  /** The position the events were read after: the checkpoint must still be there when the transaction starts. */
  from: number;
}

export interface BatchInfo {
  projection: string;
  variant: TableVariant;
  events: readonly ProjectedEvent[];
  position: number;
}

export interface BatchHooks {
  /** Test hook, called inside the transaction after the read models changed and before the checkpoint is written. */
  beforeCommit?: (batch: BatchInfo) => void;
}

/**
 * Applies events to each target and moves its checkpoint, in the caller's transaction: the
 * read models and the checkpoint change together or not at all, so a crash can neither skip
 * nor repeat an event. Returns false (and changes nothing) when a checkpoint is no longer
 * where the events were read from (another writer, or a rebuild's swap, moved it), or while
 * a verifying rebuild has paused the projection. On
 * PostgreSQL the checkpoint rows stay locked until the transaction ends: the lock that a
 * rebuild's swap takes too.
 */
export function* applyBatch(
  d: Dialect,
  targets: readonly BatchTarget[],
  events: readonly ProjectedEvent[],
  hooks: BatchHooks = {},
  options: { ignorePause?: boolean; bulk?: boolean } = {},
): Step<boolean> {
  const ordered = [...targets].sort((a, b) => (a.checkpoint < b.checkpoint ? -1 : a.checkpoint > b.checkpoint ? 1 : 0));
  for (const target of ordered) {
    const row = yield* d.checkpointRow(target.checkpoint, true);
    if ((row?.position ?? 0) !== target.from) return false;
    // A verifying rebuild is comparing the live tables: they must not move meanwhile.
    if (row?.pausedUntil && !options.ignorePause) return false;
  }
  for (const target of ordered) {
    const mine = events.filter((e) => e.position > target.from);
    if (mine.length === 0) continue;
    yield* target.projection.apply(d, mine, target.variant, { bulk: options.bulk === true });
    const position = mine[mine.length - 1]!.position;
    hooks.beforeCommit?.({ projection: target.projection.name, variant: target.variant, events: mine, position });
    yield* d.setCheckpoint(target.checkpoint, position);
  }
  return true;
}
