import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonCostProblem, scanJsonCost } from './json-cost';

/** What the scanner counts, counted on the parsed value. */
function costOf(value: unknown): { nodes: number; maxKeys: number } {
  let nodes = 0;
  let maxKeys = 0;
  const stack = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    nodes++;
    if (Array.isArray(current)) stack.push(...current);
    else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      maxKeys = Math.max(maxKeys, keys.length);
      stack.push(...Object.values(current));
    }
  }
  return { nodes, maxKeys };
}

describe('jsonCostProblem', () => {
  it('gives the full scan’s verdict on any text, malformed too, when it skips the scan of a short one', () => {
    const structural = fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '\\', ' ', 'a', '1');
    let skipped = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.array(structural, { maxLength: 60 }).map((chars) => chars.join('')),
          // Malformed runs like "[,,," count two values on one character: the bound's worst case.
          fc.array(fc.constantFrom('[', ','), { maxLength: 12 }).map((chars) => chars.join('')),
        ),
        // Limits around the bound (n keys, 2n values for n characters), where a wrong shortcut would show.
        fc.integer({ min: -3, max: 3 }),
        fc.constantFrom(1, 2),
        fc.integer({ min: -3, max: 3 }),
        (text, keysOffset, nodesPerCharacter, nodesOffset) => {
          const limits = {
            maxKeysPerObject: Math.max(0, text.length + keysOffset),
            maxNodes: Math.max(0, nodesPerCharacter * text.length + nodesOffset),
          };
          if (text.length <= limits.maxKeysPerObject && 2 * text.length <= limits.maxNodes) skipped++;
          expect(jsonCostProblem(text, limits)).toEqual(scanJsonCost(text, limits));
        },
      ),
      { numRuns: 2000 },
    );
    // The shortcut was exercised, not only the scan.
    expect(skipped).toBeGreaterThan(100);
  });

  it('counts on the text exactly what the parsed value holds: at the limits it passes, one under it is refused', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const { nodes, maxKeys } = costOf(JSON.parse(text));
        expect(jsonCostProblem(text, { maxKeysPerObject: maxKeys, maxNodes: nodes })).toBeNull();
        expect(jsonCostProblem(text, { maxKeysPerObject: maxKeys, maxNodes: nodes - 1 })?.limit).toBe('nodes');
        if (maxKeys > 0) expect(jsonCostProblem(text, { maxKeysPerObject: maxKeys - 1, maxNodes: nodes })?.limit).toBe('keys_per_object');
      }),
      { numRuns: 500 },
    );
  });

  it('is not fooled by braces, colons and escaped quotes inside strings', () => {
    const text = JSON.stringify({ a: '{"x":1,"y":[1,2,3]}\\"', b: ['",:{[', 'q\\"'] });
    expect(jsonCostProblem(text, { maxKeysPerObject: 2, maxNodes: 5 })).toBeNull();
    expect(jsonCostProblem(text, { maxKeysPerObject: 1, maxNodes: 5 })?.limit).toBe('keys_per_object');
  });

  it('refuses one object of 60 000 keys (about 800 KB)', () => {
    const text = `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    expect(text.length).toBeGreaterThan(500_000);
    expect(jsonCostProblem(text)).toMatchObject({ limit: 'keys_per_object' });
  });
});
