import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idFilter, idProbe, mayContain, maybeMask, SLICED_GROUP, sliceFilters } from './id-filter';

const RUNS = Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 4));

describe('id filters of sealed segments (property-based)', () => {
  it('never says no for an id it holds (a "no" skips the segment: a wrong one would lose a turn or a tool call)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 64 }), (ids) => {
        const filter = idFilter(ids);
        for (const id of ids) expect(mayContain(filter, id)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('never says no for an id it holds in a filter of 16 bits an id (heads written before session 18 are read at their own size)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 64 }), (ids) => {
        const filter = idFilter(ids, 16);
        expect(filter.length).toBe(Math.max(8, Math.ceil((ids.length * 16) / 8)));
        for (const id of ids) expect(mayContain(filter, id)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('says maybe for absent random ids less often than a filter of 16 bits an id did (averaged over 20 segments of 32 ids)', () => {
    let state = 0x2545f491;
    const randomId = () => {
      let id = '';
      for (let i = 0; i < 24; i++) {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        id += 'abcdefghijklmnopqrstuvwxyz0123456789'[state % 36];
      }
      return id;
    };
    let now = 0;
    let before = 0;
    for (let segment = 0; segment < 20; segment++) {
      const ids = Array.from({ length: 32 }, randomId);
      const [current, old] = [idFilter(ids), idFilter(ids, 16)];
      for (let i = 0; i < 20_000; i++) {
        const absent = randomId();
        if (mayContain(current, absent)) now++;
        if (mayContain(old, absent)) before++;
      }
    }
    expect(now).toBeLessThan(before / 2);
  });

  it('says maybe for few ids it does not hold: under 0.5 % for a 32-id segment (a maybe costs a segment read)', () => {
    // Ids as sessions make them (UUIDv7-like) and as callers name tool calls.
    const ids = Array.from({ length: 32 }, (_, i) => `01a226a0-4115-7453-b029-${String(i).padStart(12, '0')}`);
    const filter = idFilter(ids);
    let maybe = 0;
    const absent = 100_000;
    for (let i = 0; i < absent; i++) if (mayContain(filter, i % 2 ? `call-${i}` : `01a226a0-4115-7453-b029-${String(1000 + i).padStart(12, '0')}`)) maybe++;
    expect(maybe / absent).toBeLessThan(0.005);
  });

  it('answers for a bit-sliced group of 32 filters exactly what each filter answers alone (ids held, absent, and a group of mixed sizes not sliced)', () => {
    const idsArb = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 24 }), { minLength: 1, maxLength: 32 });
    fc.assert(
      fc.property(
        fc.array(idsArb, { minLength: SLICED_GROUP, maxLength: SLICED_GROUP }),
        fc.array(fc.string({ maxLength: 24 }), { maxLength: 20 }),
        fc.boolean(),
        (groups, others, mixed) => {
          // Segments hold `size` ids each, so their filters share a size; one filter of 16 bits an id breaks that.
          const filters = groups.map((ids, j) =>
            idFilter(ids.slice(0, 4).concat(`pad-${j}-a`, `pad-${j}-b`, `pad-${j}-c`).slice(0, 4), mixed && j === 7 ? 16 : 32),
          );
          const sliced = sliceFilters(filters);
          if (mixed) {
            expect(sliced).toBeNull();
            return;
          }
          expect(sliced).not.toBeNull();
          const probes = groups.flatMap((ids) => ids.slice(0, 4)).concat(others);
          for (const id of probes) {
            const mask = maybeMask(sliced!, idProbe(id));
            for (let j = 0; j < SLICED_GROUP; j++) expect(((mask >>> j) & 1) === 1).toBe(mayContain(filters[j]!, id));
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
