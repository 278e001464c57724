import type { Pool } from 'pg';
import type { PruneSnapshotsOptions, PruneSnapshotsResult } from '../snapshot-pruning';
import { readState } from './snapshot-columns';
import { withTransaction } from './transaction';

/**
 * Snapshot pruning and segment collection on PostgreSQL, one stream per transaction; the
 * snapshot tables are locked against writers for that transaction, so a snapshot written
 * meanwhile can never be left referring to a collected segment.
 */
export async function prunePostgresSnapshots(pool: Pool, schema: string, options: PruneSnapshotsOptions): Promise<PruneSnapshotsResult> {
  if (!Number.isSafeInteger(options.keep) || options.keep < 1) throw new RangeError(`keep must be a whole number from 1 (got ${options.keep}).`);
  const s = `"${schema}"`;
  const { rows: streams } = await pool.query<{ stream_id: string }>(`SELECT stream_id FROM ${s}.snapshots UNION SELECT stream_id FROM ${s}.snapshot_segments`);
  const result: PruneSnapshotsResult = { streams: 0, snapshotsDeleted: 0, segmentsDeleted: 0, bytesReclaimed: 0 };
  for (const { stream_id: streamId } of streams) {
    await withTransaction(pool, async (client) => {
      await client.query(`LOCK TABLE ${s}.snapshots, ${s}.snapshot_segments IN SHARE ROW EXCLUSIVE MODE`);
      const { rows: snapshots } = await client.query<{
        reducer_version: number;
        version: string;
        state: unknown;
        state_deflated: Buffer | null;
        bytes: number;
      }>(
        `SELECT reducer_version, version, state, state_deflated, coalesce(pg_column_size(state), pg_column_size(state_deflated)) AS bytes
           FROM ${s}.snapshots WHERE stream_id = $1 ORDER BY version DESC, reducer_version DESC`,
        [streamId],
      );
      const doomed = snapshots.slice(options.keep);
      const referenced = new Set(snapshots.slice(0, options.keep).flatMap((row) => options.referencedSegments(readState(row.state, row.state_deflated))));
      const { rows: segments } = await client.query<{ segment_id: string; bytes: number }>(
        `SELECT segment_id, pg_column_size(data) AS bytes FROM ${s}.snapshot_segments WHERE stream_id = $1`,
        [streamId],
      );
      const unreferenced = segments.filter((row) => !referenced.has(row.segment_id));
      if (doomed.length + unreferenced.length > 0) {
        result.streams++;
        result.snapshotsDeleted += doomed.length;
        result.segmentsDeleted += unreferenced.length;
        result.bytesReclaimed += doomed.reduce((n, row) => n + Number(row.bytes), 0) + unreferenced.reduce((n, row) => n + Number(row.bytes), 0);
        if (!options.dryRun) {
          for (const row of doomed) {
            await client.query(`DELETE FROM ${s}.snapshots WHERE stream_id = $1 AND reducer_version = $2 AND version = $3`, [
              streamId,
              row.reducer_version,
              row.version,
            ]);
          }
          if (unreferenced.length > 0) {
            await client.query(`DELETE FROM ${s}.snapshot_segments WHERE stream_id = $1 AND segment_id = ANY($2::text[])`, [
              streamId,
              unreferenced.map((row) => row.segment_id),
            ]);
          }
        }
      }
    });
  }
  return result;
}
