import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nearestByHamming, wordsPerCode } from './hamming';

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v !== 0; v >>>= 1) n += v & 1;
  return n;
}

function distance(codes: Uint32Array, i: number, query: Uint32Array): number {
  let d = 0;
  for (let w = 0; w < query.length; w++) d += popcount(codes[i * query.length + w]! ^ query[w]!);
  return d;
}

describe('nearestByHamming', () => {
  it('returns k positions whose distances are the k smallest (the same multiset a full sort gives), each once (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }).chain((words) =>
          fc.record({
            words: fc.constant(words),
            // Few distinct words make many ties at the cut.
            codes: fc.array(fc.array(fc.constantFrom(0, 0xffffffff, 0x0f0f0f0f, 1, 0x80000000, 0x12345678), { minLength: words, maxLength: words }), {
              minLength: 0,
              maxLength: 200,
            }),
            query: fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: words, maxLength: words }),
            k: fc.integer({ min: 0, max: 220 }),
          }),
        ),
        ({ codes, query, k }) => {
          const packed = Uint32Array.from(codes.flat());
          const q = Uint32Array.from(query);
          const nearest = nearestByHamming(packed, codes.length, q, k);
          expect(nearest).toHaveLength(Math.min(k, codes.length));
          expect(new Set(nearest).size).toBe(nearest.length);
          const all = codes.map((_, i) => distance(packed, i, q)).sort((a, b) => a - b);
          const got = nearest.map((i) => distance(packed, i, q)).sort((a, b) => a - b);
          expect(got).toEqual(all.slice(0, nearest.length));
        },
      ),
    );
  });

  it('counts every bit of a 32-bit word (the two 16-bit halves)', () => {
    const codes = Uint32Array.from([0xffffffff, 0xffff0000, 0x0000ffff, 0x00000000]);
    expect(nearestByHamming(codes, 4, Uint32Array.from([0]), 1)).toEqual([3]);
    expect(nearestByHamming(codes, 4, Uint32Array.from([0xffffffff]), 1)).toEqual([0]);
    expect(nearestByHamming(codes, 4, Uint32Array.from([0xffff0000]), 2).sort()).toEqual([0, 1]);
  });

  it('pads a code to whole 32-bit words', () => {
    expect(wordsPerCode(48)).toBe(12);
    expect(wordsPerCode(49)).toBe(13);
    expect(wordsPerCode(1)).toBe(1);
  });
});
