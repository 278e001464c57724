/** The bounds of a follower's batch: `min` while it keeps up, up to `max` while a backlog lasts. */
export interface BatchBounds {
  min: number;
  max: number;
}

/**
 * The size of a follower's next batch: twice the last one after a full batch (a backlog: fewer,
 * larger batches share each batch's fixed cost, a read of the log, a checkpoint, a transaction),
 * back to `min` after one that was not (caught up: small batches keep each handler run short).
 */
export function nextBatchSize(last: number, handled: number, bounds: BatchBounds): number {
  if (handled < last) return bounds.min;
  return Math.min(bounds.max, Math.max(bounds.min, last * 2));
}

/** Checks bounds given as options: whole numbers, 1 ≤ min ≤ max. */
export function batchBounds(min: number, max: number = min): BatchBounds {
  if (!Number.isSafeInteger(min) || min < 1) throw new Error(`A batch size is a whole number of events, at least 1 (got ${min}).`);
  if (!Number.isSafeInteger(max) || max < min)
    throw new Error(`The largest batch (${max}) must be a whole number of events, at least the batch size (${min}).`);
  return { min, max };
}
