import type { Snapshot } from '../event-store';
import { isCacheMiss, type SealedSnapshot, type SnapshotKeyRing } from './snapshot-keys';
import { noteSnapshotRejected } from './snapshot-rejections';

/** A stored snapshot as a read serves it: the snapshot, or none and, when its seal does not hold, why. */
export interface ServedSnapshot {
  snapshot: Snapshot | null;
  rejected?: { version: number; problem: string };
}

/**
 * The snapshot `sealed` holds, served only if its seal holds under `keys` (after reading them again,
 * for a rotation by another process). A refused one is reported, and replay takes its place.
 */
export async function servedSnapshot(keys: SnapshotKeyRing, sealed: SealedSnapshot): Promise<ServedSnapshot> {
  const { streamId, reducerVersion, version } = sealed;
  const problem = await keys.problemAfterRefresh(sealed);
  if (!problem) return { snapshot: { streamId, version, reducerVersion, state: JSON.parse(sealed.stateJson) } };
  // An unsealed snapshot (written before seals, or sealed before the master key) is a plain cache miss; a seal that does not hold is reported.
  if (isCacheMiss(problem)) return { snapshot: null };
  noteSnapshotRejected({ streamId, version, problem });
  return { snapshot: null, rejected: { version, problem } };
}
