import fc from 'fast-check';
import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './time-ordered-id';

describe('time-ordered event ids', () => {
  it('are valid UUIDv7s, unique, and strictly increasing in the order they were made (across pool refills)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_000 }), (count) => {
        const ids = Array.from({ length: count }, timeOrderedId);
        for (const id of ids) {
          expect(validate(id)).toBe(true);
          expect(version(id)).toBe(7);
        }
        for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('carry the time they were made in their first 48 bits', () => {
    const before = Date.now();
    const id = timeOrderedId();
    const msecs = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(msecs).toBeGreaterThanOrEqual(before);
    expect(msecs).toBeLessThanOrEqual(Date.now() + 1);
  });
});
