/** A stored snapshot as pruning sees it: its place in the snapshot stream, what it is, what it refers to. */
export interface StoredSnapshotInfo {
  revision: bigint;
  version: number;
  reducerVersion: number;
  bytes: number;
  segments: readonly string[];
}

export interface SnapshotPruningPlan {
  /** The snapshot stream's new `$tb` (truncate before), or null to leave it. */
  truncateBefore: bigint | null;
  /** The snapshots that truncation hides (the server removes them at its next scavenge). */
  removed: StoredSnapshotInfo[];
  /** Segments only the removed snapshots referred to. */
  segments: string[];
}

/**
 * Which snapshots of one stream go, on a server that cannot delete single events: the newest
 * `keep` (by version, then reducer version, as on the SQL stores) stay, and everything written
 * before the oldest of them is truncated. A snapshot outside the newest `keep` but written after
 * one of them (a past version snapshotted late) stays too: truncation only cuts a prefix.
 */
export function planSnapshotPruning(snapshots: readonly StoredSnapshotInfo[], keep: number): SnapshotPruningPlan {
  if (!Number.isSafeInteger(keep) || keep < 1) throw new RangeError(`keep must be a whole number from 1 (got ${keep}).`);
  const newest = [...snapshots].sort((a, b) => b.version - a.version || b.reducerVersion - a.reducerVersion).slice(0, keep);
  if (newest.length === snapshots.length) return { truncateBefore: null, removed: [], segments: [] };
  const truncateBefore = newest.reduce((min, s) => (s.revision < min ? s.revision : min), newest[0]!.revision);
  const removed = snapshots.filter((s) => s.revision < truncateBefore);
  if (removed.length === 0) return { truncateBefore: null, removed: [], segments: [] };
  const stillReferenced = new Set(snapshots.filter((s) => s.revision >= truncateBefore).flatMap((s) => s.segments));
  const segments = [...new Set(removed.flatMap((s) => s.segments))].filter((id) => !stillReferenced.has(id));
  return { truncateBefore, removed, segments };
}
