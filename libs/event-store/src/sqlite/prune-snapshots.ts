import type Database from 'better-sqlite3';
import type { PruneSnapshotsOptions, PruneSnapshotsResult } from '../snapshot-pruning';
import { decodeSnapshot } from '../snapshot-codec';

/**
 * Snapshot pruning and segment collection on the SQLite file, one stream per transaction
 * (IMMEDIATE: no snapshot of the stream can be written between the read and the deletes).
 */
export function pruneSqliteSnapshots(db: Database.Database, options: PruneSnapshotsOptions): PruneSnapshotsResult {
  if (!Number.isSafeInteger(options.keep) || options.keep < 1) throw new RangeError(`keep must be a whole number from 1 (got ${options.keep}).`);
  const streams = db
    .prepare<[], { stream_id: string }>('SELECT stream_id FROM snapshots UNION SELECT stream_id FROM snapshot_segments')
    .all()
    .map((r) => r.stream_id);
  const snapshotsOf = db.prepare<[string], { rowid: number; state: string | Buffer; bytes: number }>(
    'SELECT rowid, state, length(state) AS bytes FROM snapshots WHERE stream_id = ? ORDER BY version DESC, reducer_version DESC',
  );
  const segmentsOf = db.prepare<[string], { segment_id: string; bytes: number }>(
    'SELECT segment_id, length(data) AS bytes FROM snapshot_segments WHERE stream_id = ?',
  );
  const deleteSnapshot = db.prepare('DELETE FROM snapshots WHERE rowid = ?');
  const deleteSegment = db.prepare('DELETE FROM snapshot_segments WHERE stream_id = ? AND segment_id = ?');
  const result: PruneSnapshotsResult = { streams: 0, snapshotsDeleted: 0, segmentsDeleted: 0, bytesReclaimed: 0 };
  const pruneStream = db.transaction((streamId: string) => {
    const snapshots = snapshotsOf.all(streamId);
    const doomed = snapshots.slice(options.keep);
    const referenced = new Set(snapshots.slice(0, options.keep).flatMap((s) => options.referencedSegments(decodeSnapshot(s.state))));
    const unreferenced = segmentsOf.all(streamId).filter((s) => !referenced.has(s.segment_id));
    if (doomed.length + unreferenced.length === 0) return;
    result.streams++;
    result.snapshotsDeleted += doomed.length;
    result.segmentsDeleted += unreferenced.length;
    result.bytesReclaimed += doomed.reduce((n, s) => n + s.bytes, 0) + unreferenced.reduce((n, s) => n + s.bytes, 0);
    if (options.dryRun) return;
    for (const s of doomed) deleteSnapshot.run(s.rowid);
    for (const s of unreferenced) deleteSegment.run(streamId, s.segment_id);
  });
  for (const streamId of streams) pruneStream.immediate(streamId);
  return result;
}
