import { decodeSnapshot, encodeSnapshot } from '../snapshot-codec';

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
