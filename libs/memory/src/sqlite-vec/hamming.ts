/**
 * Brute-force nearest neighbours over 1-bit codes (sign bits of the vectors), packed into
 * 32-bit words. Pure: no I/O. A scan of 100 000 codes of 384 bits takes ~4 ms, whatever k is
 * (the distances are small integers, so the k nearest are found with a histogram, not a sort).
 */

/** Set bits of every 16-bit value: two lookups count a 32-bit word. */
const POPCOUNT_16 = (() => {
  const table = new Uint8Array(1 << 16);
  for (let i = 1; i < table.length; i++) table[i] = table[i >> 1]! + (i & 1);
  return table;
})();

/** 32-bit words per code of `bytes` bytes (a code's tail is zero-padded: XOR of two pads is 0). */
export function wordsPerCode(bytes: number): number {
  return Math.ceil(bytes / 4);
}

let distances = new Uint16Array(0);

/**
 * The positions (0 … count−1) of the `k` codes nearest to `query` by Hamming distance, in no
 * particular order; ties at the cut are taken in position order.
 */
export function nearestByHamming(codes: Uint32Array, count: number, query: Uint32Array, k: number): number[] {
  const words = query.length;
  if (k >= count) return Array.from({ length: count }, (_, i) => i);
  if (k <= 0) return [];
  // One buffer reused across calls: a search allocates nothing proportional to the index.
  if (distances.length < count) distances = new Uint16Array(Math.max(count, distances.length * 2));
  const histogram = new Uint32Array(words * 32 + 1);
  if (words % 4 === 0) {
    // Four words a step (every model's dimensions are a multiple of 128): ~20 % faster in V8.
    for (let i = 0, offset = 0; i < count; i++) {
      let d = 0;
      for (let w = 0; w < words; w += 4, offset += 4) {
        const a = codes[offset]! ^ query[w]!;
        const b = codes[offset + 1]! ^ query[w + 1]!;
        const c = codes[offset + 2]! ^ query[w + 2]!;
        const e = codes[offset + 3]! ^ query[w + 3]!;
        d +=
          POPCOUNT_16[a & 0xffff]! +
          POPCOUNT_16[a >>> 16]! +
          POPCOUNT_16[b & 0xffff]! +
          POPCOUNT_16[b >>> 16]! +
          POPCOUNT_16[c & 0xffff]! +
          POPCOUNT_16[c >>> 16]! +
          POPCOUNT_16[e & 0xffff]! +
          POPCOUNT_16[e >>> 16]!;
      }
      distances[i] = d;
      histogram[d]!++;
    }
  } else {
    for (let i = 0, offset = 0; i < count; i++) {
      let d = 0;
      for (let w = 0; w < words; w++, offset++) {
        const x = codes[offset]! ^ query[w]!;
        d += POPCOUNT_16[x & 0xffff]! + POPCOUNT_16[x >>> 16]!;
      }
      distances[i] = d;
      histogram[d]!++;
    }
  }
  // The cut: every code nearer than `cut` is in, and `atCut` of those at exactly `cut`.
  let cut = 0;
  let nearer = 0;
  while (nearer + histogram[cut]! < k) nearer += histogram[cut++]!;
  let atCut = k - nearer;
  const nearest: number[] = [];
  for (let i = 0; i < count; i++) {
    const d = distances[i]!;
    if (d < cut) nearest.push(i);
    else if (d === cut && atCut > 0) {
      nearest.push(i);
      atCut--;
    }
  }
  return nearest;
}
