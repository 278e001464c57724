import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);
const DEFLATE = { level: 6 } as const;

/**
 * Below this, snapshots stay plain JSON: inflating costs ~30 µs per restore, which short
 * sessions (the common case, restored most often) should not pay. Measured on PostgreSQL for
 * a 20-turn session's 16 KB head: deflated 3.0 KB against 5.4 KB pglz'd, but restores ~30 µs
 * slower at p50 (issue 17).
 */
export const COMPRESS_ABOVE_BYTES = 32 * 1024;

/**
 * Snapshots are whole states, highly repetitive JSON: deflated they take ~5x less room,
 * and inflating costs far less than the events they save from being replayed.
 */
export function encodeSnapshot(state: unknown): string | Buffer {
  const json = JSON.stringify(state);
  return json.length > COMPRESS_ABOVE_BYTES ? deflateRawSync(json, DEFLATE) : json;
}

export function decodeSnapshot(stored: string | Buffer): unknown {
  return JSON.parse(typeof stored === 'string' ? stored : inflateRawSync(stored).toString('utf8'));
}

/**
 * Segments are written once and read once per process (then cached decoded), so they are
 * always deflated: their share of storage matters more than ~20 µs of inflating.
 */
export function encodeSegment(data: string): Buffer {
  return deflateRawSync(data, DEFLATE);
}

export function decodeSegment(stored: Buffer): string {
  return inflateRawSync(stored).toString('utf8');
}

/** The state's JSON text as encodeSnapshot(JsonOffThread) was given it. */
export function decodeSnapshotJson(stored: string | Buffer): string {
  return typeof stored === 'string' ? stored : inflateRawSync(stored).toString('utf8');
}

/**
 * As encodeSegment, and encodeSnapshot from the state's JSON text (which a snapshot's seal hashes):
 * the same bytes, deflated on libuv's thread pool. A
 * snapshot is written after its request was answered, and deflating a long session's segments on
 * the event loop was ~5 % of its time under concurrent writers (W4 profile, SQLite, a turn per request).
 */
export function encodeSegmentOffThread(data: string): Promise<Buffer> {
  return deflateRawAsync(data, DEFLATE);
}

export async function encodeSnapshotJsonOffThread(json: string): Promise<string | Buffer> {
  return json.length > COMPRESS_ABOVE_BYTES ? deflateRawAsync(json, DEFLATE) : json;
}
