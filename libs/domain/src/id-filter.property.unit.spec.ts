import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idFilter, mayContain } from './id-filter';

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

  it('says maybe for few ids it does not hold: under 0.5 % for a 32-id segment (a maybe costs a segment read)', () => {
    // Ids as sessions make them (UUIDv7-like) and as callers name tool calls.
    const ids = Array.from({ length: 32 }, (_, i) => `01a226a0-4115-7453-b029-${String(i).padStart(12, '0')}`);
    const filter = idFilter(ids);
    let maybe = 0;
    const absent = 100_000;
    for (let i = 0; i < absent; i++) if (mayContain(filter, i % 2 ? `call-${i}` : `01a226a0-4115-7453-b029-${String(1000 + i).padStart(12, '0')}`)) maybe++;
    expect(maybe / absent).toBeLessThan(0.005);
  });
});
