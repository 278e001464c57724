import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addTurn, copyTurns, emptyPathState, findTurnIndex, type PathState, type Turn } from './state';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 1000);
const turn = (turnId: string): Turn => ({ turnId, status: 'open', startedVersion: 1, messages: [] });
const naive = (turns: Turn[], id: string) => {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.turnId === id) return i;
  return -1;
};
const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
/** Adding a turn (through addTurn, as evolve does, or a plain push), copying the array, or replacing an entry in place by a copy of it (as a scratch state does: the index relies on an entry keeping its id). */
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), id }),
  fc.record({ kind: fc.constant('push' as const), id }),
  fc.record({ kind: fc.constant('copy' as const) }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat() }),
);

describe('finding a turn by id (property-based)', () => {
  it('finds what a scan from the end finds, whatever was added, copied or replaced before', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        let path: PathState = emptyPathState();
        for (const o of ops) {
          if (o.kind === 'add') addTurn(path, turn(o.id));
          else if (o.kind === 'push') path.turns.push(turn(o.id));
          else if (o.kind === 'copy') path = { ...path, turns: copyTurns(path.turns) };
          else if (o.kind === 'replace' && path.turns.length > 0) {
            const at = o.at % path.turns.length;
            path.turns[at] = { ...path.turns[at]!, messages: [] };
          }
          for (const probe of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'z']) expect(findTurnIndex(path, probe)).toBe(naive(path.turns, probe));
        }
      }),
      { numRuns: RUNS },
    );
  });
});
