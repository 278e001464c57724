import { servedSnapshot, type ServedSnapshot } from '../audit/served-snapshot';
import type { SnapshotKeyRing } from '../audit/snapshot-keys';
import { decodeSnapshot, decodeSnapshotJson, encodeSnapshot } from '../snapshot-codec';

/**
 * A snapshot's state as the snapshots row's two columns (migration 6), exactly one of them set:
 * `state` (JSON) for rows written before and states below the codec's threshold (which
 * PostgreSQL pglz-compresses itself above ~2 KB), `state_deflated` for the larger ones: deflate
 * takes them to about half of what pglz makes of them.
 */
export function storedState(state: unknown): [state: string | null, deflated: Buffer | null] {
  const encoded = encodeSnapshot(state ?? null);
  return typeof encoded === 'string' ? [encoded, null] : [null, encoded];
}

/** A snapshot's state from its row: the driver has parsed the JSON column; the deflated one is inflated here. */
export function readState(state: unknown, deflated: Buffer | null): unknown {
  return deflated === null ? state : decodeSnapshot(deflated);
}

/** A snapshots row as read with the link of the event it was taken at. */
export interface SnapshotRow {
  version: number;
  /** The JSON text (rows below the deflate threshold), else null. */
  state: string | null;
  deflated: Buffer | null;
  seal: Buffer | null;
  link: Buffer | null;
}

/** The snapshot in `row`, or null (reported) when its seal does not hold: the caller replays instead. */
export async function checkedSnapshot(keys: SnapshotKeyRing, streamId: string, reducerVersion: number, row: SnapshotRow): Promise<ServedSnapshot> {
  const stateJson = row.deflated === null ? (row.state ?? 'null') : decodeSnapshotJson(row.deflated);
  return servedSnapshot(keys, { seal: row.seal, link: row.link, streamId, reducerVersion, version: row.version, stateJson });
}
