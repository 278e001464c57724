import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendOnlyView } from './append-only-view';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 1000);

/** What may be done to an array: what evolve does (push, pop), and what it does not (writes inside, truncation, splice, delete). */
type Op =
  | { kind: 'push'; values: number[] }
  | { kind: 'pop' }
  | { kind: 'set'; at: number; value: number }
  | { kind: 'length'; to: number }
  | { kind: 'splice'; at: number; remove: number; values: number[] }
  | { kind: 'delete'; at: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('push' as const), values: fc.array(fc.integer(), { minLength: 1, maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'pop' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('set' as const), at: fc.nat({ max: 30 }), value: fc.integer() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('length' as const), to: fc.nat({ max: 30 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('splice' as const),
      at: fc.nat({ max: 30 }),
      remove: fc.nat({ max: 3 }),
      values: fc.array(fc.integer(), { maxLength: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat({ max: 30 }) }) },
);

function apply(array: number[], op: Op): unknown {
  switch (op.kind) {
    case 'push':
      return array.push(...op.values);
    case 'pop':
      return array.pop();
    case 'set':
      return (array[op.at] = op.value);
    case 'length':
      return (array.length = op.to);
    case 'splice':
      return array.splice(op.at, op.remove, ...op.values);
    case 'delete':
      return delete array[op.at];
  }
}

/** Everything a reader can see of an array. */
const seen = (array: number[]) => ({
  length: array.length,
  items: Array.from({ length: array.length }, (_, i) => array[i]),
  holes: Array.from({ length: array.length }, (_, i) => i in array),
  keys: Object.keys(array),
  json: JSON.stringify(array),
  spread: [...array],
  last: array.at(-1),
  isArray: Array.isArray(array),
});

describe('appendOnlyView (property-based)', () => {
  it('behaves as a copy of its base under any operations, and never changes the base', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 20 }), fc.array(opArb, { maxLength: 25 }), (base, ops) => {
        const before = base.slice();
        const copy = base.slice();
        const view = appendOnlyView(base);
        expect(seen(view)).toEqual(seen(copy));
        for (const op of ops) {
          expect(apply(view, op)).toEqual(apply(copy, op));
          expect(seen(view)).toEqual(seen(copy));
        }
        expect(base).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });
});
