import { decodeSnapshot, encodeSnapshot } from '../snapshot-codec';
import { DEFLATE_SNAPSHOTS_ABOVE } from './format';

/**
 * A snapshot's state as the snapshots row's two columns (migration 6), exactly one of them set:
 * `state` (JSON) for small states and rows written before, `state_deflated` for the rest.
 */
export function storedState(state: unknown): [state: string | null, deflated: Buffer | null] {
  const encoded = encodeSnapshot(state ?? null, DEFLATE_SNAPSHOTS_ABOVE);
  return typeof encoded === 'string' ? [encoded, null] : [null, encoded];
}

/** A snapshot's state from its row: the driver has parsed the JSON column; the deflated one is inflated here. */
export function readState(state: unknown, deflated: Buffer | null): unknown {
  return deflated === null ? state : decodeSnapshot(deflated);
}
