/**
 * Retention for the caches beside the log: snapshots beyond the newest `keep` of each stream,
 * and segments no remaining snapshot refers to. Events are never touched; a pruned snapshot
 * only means a longer replay.
 */
export interface PruneSnapshotsOptions {
  /** Snapshots kept per stream, newest first (at least 1). */
  keep: number;
  dryRun: boolean;
  /** The segment ids a stored snapshot state refers to (the engine's format; [] for none). */
  referencedSegments: (state: unknown) => string[];
}

export interface PruneSnapshotsResult {
  streams: number;
  snapshotsDeleted: number;
  segmentsDeleted: number;
  /** Bytes of the deleted rows' stored columns (what the database can reuse; a file shrinks only on VACUUM). */
  bytesReclaimed: number;
}

export interface SnapshotPruner {
  pruneSnapshots(options: PruneSnapshotsOptions): Promise<PruneSnapshotsResult>;
}
