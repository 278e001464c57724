import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPRESS_ABOVE_BYTES } from '../snapshot-codec';
import { readState, storedState } from './snapshot-columns';

describe('snapshot columns on PostgreSQL (state JSON or deflated)', () => {
  it('round-trips any JSON state, in exactly one column, deflated exactly when its JSON is longer than the threshold', () => {
    // Long strings and arrays too, so that both forms come up.
    const state = fc.oneof(fc.jsonValue(), fc.array(fc.string({ minLength: 200, maxLength: 1200 }), { minLength: 10, maxLength: 60 }));
    fc.assert(
      fc.property(state, (value) => {
        const [json, deflated] = storedState(value);
        expect((json === null) !== (deflated === null)).toBe(true);
        expect(deflated !== null).toBe(JSON.stringify(value ?? null).length > COMPRESS_ABOVE_BYTES);
        // The driver hands the JSON column over parsed.
        const read = readState(json === null ? null : JSON.parse(json), deflated);
        expect(read).toEqual(JSON.parse(JSON.stringify(value ?? null)));
      }),
      { numRuns: 200 },
    );
  });
});
