/**
 * Snapshots a store refused to serve because their seal did not hold (the read replayed the
 * events instead). Process-wide: the stores report here, the API counts them in /metrics and
 * logs the first one.
 */
export interface SnapshotRejection {
  streamId: string;
  version: number;
  problem: string;
}

type Listener = (rejection: SnapshotRejection) => void;

const listeners = new Set<Listener>();
let count = 0;

/** Called by a store when it skips a snapshot whose seal does not hold. */
export function noteSnapshotRejected(rejection: SnapshotRejection): void {
  count++;
  for (const listener of listeners) listener(rejection);
}

/** Snapshots refused since the process started. */
export const rejectedSnapshotCount = () => count;

/** Tells `listener` of every refused snapshot; returns the unsubscribe. */
export function onSnapshotRejected(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
