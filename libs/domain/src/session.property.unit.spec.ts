import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from './decide';
import { DomainError } from './errors';
import { isStepEvent, type RecordedSessionEvent } from './events';
import { evolveInPlace } from './evolve';
import { foldPath, replay } from './replay';
import { cloneState, initialSessionState, type SessionState } from './state';
import { recordedAt } from './testing/recorded';
import { commandsFor, intentArb, type Intent } from './testing/arbitraries';
import { isNode } from './timeline';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 1000);

interface Simulation {
  events: RecordedSessionEvent[];
  /** statesAfter[v - 1]: the incrementally folded state right after version v. */
  statesAfter: SessionState[];
  rejected: number;
  headMoves: { toVersion: number; completedAt: number }[];
}

/** Runs intents through decide and evolve, as the service does, with versions assigned in order. */
function simulate(intents: Intent[]): Simulation {
  const events: RecordedSessionEvent[] = [];
  const statesAfter: SessionState[] = [];
  const headMoves: Simulation['headMoves'] = [];
  const state = initialSessionState();
  let ids = 0;
  let rejected = 0;
  const resolve = (v: number) => foldPath(events, v);
  const apply = (cmd: Parameters<typeof decide>[1]) => {
    const decision = decide(state, cmd, { newId: () => `id-${++ids}`, actor: 'tester', pathAt: resolve });
    for (const pending of decision.events) {
      const recorded = recordedAt(pending, events.length + 1);
      events.push(recorded);
      evolveInPlace(state, recorded, resolve);
      statesAfter.push(cloneState(state));
      if (recorded.type === 'RollbackCompleted') headMoves.push({ toVersion: recorded.data.toVersion, completedAt: recorded.streamVersion });
    }
  };
  apply({ type: 'StartSession', sessionId: 's', title: 'prop' });
  for (const intent of intents) {
    for (const cmd of commandsFor(intent, state)) {
      const before = events.length;
      try {
        apply(cmd);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        expect(events.length).toBe(before);
        rejected++;
        break;
      }
    }
  }
  return { events, statesAfter, rejected, headMoves };
}

const intents = fc.array(intentArb, { minLength: 5, maxLength: 60 });

describe('session invariants (property-based)', () => {
  it('invariant 1: versions are gapless and every step hangs off an earlier timeline node', () => {
    fc.assert(
      fc.property(intents, (list) => {
        const { events, statesAfter } = simulate(list);
        const timeline = statesAfter[statesAfter.length - 1]!.timeline;
        events.forEach((event, i) => {
          expect(event.streamVersion).toBe(i + 1);
          if (isStepEvent(event.type) && event.streamVersion > 1) {
            expect(event.parentVersion).not.toBeNull();
            expect(event.parentVersion!).toBeLessThan(event.streamVersion);
            expect(isNode(timeline, event.parentVersion!)).toBe(true);
          }
          if (!isStepEvent(event.type)) expect(event.parentVersion).toBeNull();
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('invariant 2: the state at every version equals a fresh full replay, and its path is the fold of its ancestry', () => {
    fc.assert(
      fc.property(intents, (list) => {
        const { events, statesAfter } = simulate(list);
        for (let v = 1; v <= events.length; v++) {
          const replayed = replay(events, v);
          expect(replayed).toEqual(statesAfter[v - 1]);
          expect(replayed.path).toEqual(replayed.head === 0 ? initialSessionState().path : foldPath(events, replayed.head));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('invariant 3: a head move appends its own record and makes the target state current, history untouched', () => {
    let moves = 0;
    let branches = 0;
    fc.assert(
      fc.property(intents, (list) => {
        const { events, statesAfter, headMoves } = simulate(list);
        moves += headMoves.length;
        branches += events.filter((e, i) => isStepEvent(e.type) && e.parentVersion !== null && e.parentVersion !== i).length > 0 ? 1 : 0;
        for (const move of headMoves) {
          const after = statesAfter[move.completedAt - 1]!;
          expect(after.head).toBe(move.toVersion);
          expect(after.path).toEqual(foldPath(events, move.toVersion));
          // What the target looked like before the move is what it looks like after it.
          expect(after.path).toEqual(statesAfter[move.toVersion - 1]!.path);
          expect(after.version).toBe(move.completedAt);
        }
        // Replaying any prefix never depends on what came later.
        const half = Math.floor(events.length / 2);
        expect(replay(events.slice(0, half), half)).toEqual(replay(events, half));
      }),
      { numRuns: RUNS },
    );
    // The generator must really exercise head moves and branching, or the above proves little.
    expect(moves).toBeGreaterThan(RUNS / 2);
    expect(branches).toBeGreaterThan(RUNS / 10);
  });
});
