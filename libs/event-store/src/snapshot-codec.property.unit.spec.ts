import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPRESS_ABOVE_BYTES,
  decodeSegment,
  decodeSnapshotJson,
  encodeSegment,
  encodeSegmentOffThread,
  encodeSnapshot,
  encodeSnapshotJsonOffThread,
} from './snapshot-codec';

describe('snapshot codec off the event loop', () => {
  it('deflates segments to the same bytes as on the event loop, and they inflate back to the text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 2_000 }), async (text) => {
        const bytes = await encodeSegmentOffThread(text);
        expect(bytes.equals(encodeSegment(text))).toBe(true);
        expect(decodeSegment(bytes)).toBe(text);
      }),
      { numRuns: 100 },
    );
  });

  it('stores a state as encodeSnapshot does: plain JSON when short, deflated above the threshold', async () => {
    const arbitraryState = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.array(fc.record({ turn: fc.nat(), text: fc.string({ minLength: 40, maxLength: 400 }) }), { minLength: 100, maxLength: 300 }),
    );
    await fc.assert(
      fc.asyncProperty(arbitraryState, async (state) => {
        const json = JSON.stringify(state);
        const stored = await encodeSnapshotJsonOffThread(json);
        const expected = encodeSnapshot(state);
        expect(typeof stored).toBe(json.length > COMPRESS_ABOVE_BYTES ? 'object' : 'string');
        expect(typeof stored === 'string' ? stored === expected : Buffer.isBuffer(expected) && stored.equals(expected)).toBe(true);
        expect(decodeSnapshotJson(stored)).toBe(json);
      }),
      { numRuns: 40 },
    );
  });
});
