/**
 * A Bloom filter of the ids in one sealed history segment (32 turns or tool calls): whether an id
 * MAY be in the segment, without reading it. A state whose sealed history stays on disk answers
 * "is there a turn / tool call with this id?" (every new turn and tool call asks it) by reading only
 * the segments whose filter says maybe, and a present id reads the segment that holds it. A false
 * "maybe" costs a read in every lookup of a new id, so their number grows with the session's
 * segments: measured with random ids, ~1.5 in 1 000 per segment at 16 bits an id (until session 18),
 * ~2 in 10 000 at 32 (the two 32-bit hashes, not the size, set that floor). In the engine alone, 32
 * sessions of 7 000 turns read 0.45 segments a turn at 16 bits and 0.06 at 32 (many-sessions-cpu.bench.ts).
 *
 * Stored in snapshot heads as base64: the hash (FNV-1a over UTF-16 code units, two seeds, double
 * hashing) is part of the format; changing it needs a new name for the head's `filters` field. The
 * size is not: a filter is read at its own length, so heads written with 16 bits an id stay readable.
 */
export const ID_FILTER_BITS_PER_ID = 32;
const PROBES = 8;

function fnv1a(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** An id's two hashes, computed once and probed against every filter a lookup reads (they differ only in size). */
export interface IdProbe {
  readonly h1: number;
  readonly h2: number;
}

export function idProbe(id: string): IdProbe {
  // h2 odd: the probes of one id differ.
  return { h1: fnv1a(id, 0x811c9dc5), h2: fnv1a(id, 0x9747b28c) | 1 };
}

/**
 * The filter of `ids` (its size follows their count: a filter is built once, when its segment is
 * sealed). `bitsPerId` other than the default only makes filters as older heads hold them (tests).
 */
export function idFilter(ids: readonly string[], bitsPerId = ID_FILTER_BITS_PER_ID): Uint8Array {
  const bytes = Math.max(8, Math.ceil((ids.length * bitsPerId) / 8));
  const filter = new Uint8Array(bytes);
  const bits = bytes * 8;
  for (const id of ids) {
    const { h1, h2 } = idProbe(id);
    for (let i = 0; i < PROBES; i++) {
      const bit = ((h1 + Math.imul(i, h2)) >>> 0) % bits;
      filter[bit >>> 3] = filter[bit >>> 3]! | (1 << (bit & 7));
    }
  }
  return filter;
}

/** False when `id` (its probe) is certainly not among the filter's ids; true when it may be. */
export function mayContain(filter: Uint8Array, id: string | IdProbe): boolean {
  const probe = typeof id === 'string' ? idProbe(id) : id;
  const bits = filter.length * 8;
  for (let i = 0; i < PROBES; i++) {
    const bit = ((probe.h1 + Math.imul(i, probe.h2)) >>> 0) % bits;
    if ((filter[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

/** Filters a bit-sliced group holds: one bit of a 32-bit word each. */
export const SLICED_GROUP = 32;

/**
 * The filters of `SLICED_GROUP` segments of one size, bit-sliced: word b holds bit b of every
 * filter (bit j: the group's j-th filter). One probe then answers for the whole group, in as
 * many reads as one filter's (`maybeMask`), so a lookup over a long session's segments costs
 * their number divided by 32 — filters of equal size probe the same bits.
 */
export interface SlicedFilters {
  readonly bits: number;
  readonly words: Uint32Array;
}

/** The group of `filters` (exactly SLICED_GROUP, of one size) bit-sliced; null when they are not. */
export function sliceFilters(filters: readonly Uint8Array[]): SlicedFilters | null {
  if (filters.length !== SLICED_GROUP) return null;
  const bytes = filters[0]!.length;
  if (filters.some((filter) => filter.length !== bytes)) return null;
  const words = new Uint32Array(bytes * 8);
  filters.forEach((filter, j) => {
    const flag = (1 << j) >>> 0;
    for (let byte = 0; byte < bytes; byte++) {
      const value = filter[byte]!;
      if (value === 0) continue;
      for (let k = 0; k < 8; k++) if (value & (1 << k)) words[byte * 8 + k] = (words[byte * 8 + k]! | flag) >>> 0;
    }
  });
  return { bits: bytes * 8, words };
}

/** Bit j set when the group's j-th filter may contain the probed id (as `mayContain` answers it). */
export function maybeMask(sliced: SlicedFilters, probe: IdProbe): number {
  let mask = 0xffffffff;
  for (let i = 0; i < PROBES && mask !== 0; i++) mask = (mask & sliced.words[((probe.h1 + Math.imul(i, probe.h2)) >>> 0) % sliced.bits]!) >>> 0;
  return mask;
}
