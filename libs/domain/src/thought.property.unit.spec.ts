import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildContextWindow } from './context-window';
import { decide } from './decide';
import { DomainError, type DomainErrorKind } from './errors';
import type { RecordedSessionEvent } from './events';
import { evolveInPlace } from './evolve';
import { foldPath } from './replay';
import { cloneState, initialSessionState, type SessionState } from './state';
import { commandsFor, intentArb, type Intent } from './testing/arbitraries';
import { recordedAt } from './testing/recorded';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 300);

/** A session driven by random intents (thoughts among them), as the service folds it. */
function sessionAfter(intents: Intent[]): {
  state: SessionState;
  events: RecordedSessionEvent[];
  record: (c: Parameters<typeof decide>[1]) => void;
} {
  const events: RecordedSessionEvent[] = [];
  const state = initialSessionState();
  let ids = 0;
  const record = (command: Parameters<typeof decide>[1]) => {
    const decision = decide(state, command, { newId: () => `id-${++ids}`, actor: 'tester', pathAt: (v) => foldPath(events, v) });
    for (const pending of decision.events) {
      const recorded = recordedAt(pending, events.length + 1);
      events.push(recorded);
      evolveInPlace(state, recorded, (v) => foldPath(events, v));
    }
  };
  record({ type: 'StartSession', sessionId: 's' });
  for (const intent of intents) {
    for (const command of commandsFor(intent, state)) {
      try {
        record(command);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        break;
      }
    }
  }
  return { state, events, record };
}

const thoughtArb = fc.record({
  content: fc.string({ minLength: 1, maxLength: 40 }),
  steps: fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }),
});
const windowArb = fc.record({
  maxTurns: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  maxChars: fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
});

describe('agent thoughts (property-based)', () => {
  it('a thought never changes the LLM context, nor anything the agent knows; asked for, it is there', () => {
    let recorded = 0;
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 30 }), thoughtArb, windowArb, (intents, thought, window) => {
        const { state, record } = sessionAfter(intents);
        if (state.activeRollbackId !== null) return; // a rollback in progress refuses every step
        const before = cloneState(state.path);
        const contextBefore = buildContextWindow(state.path, window);
        record({ type: 'RecordThought', content: thought.content, steps: thought.steps });
        recorded++;
        expect(buildContextWindow(state.path, window)).toEqual(contextBefore);
        expect({ ...state.path, thoughts: [] }).toEqual({ ...before, thoughts: [] });
        expect(state.path.thoughts.length).toBe(before.thoughts.length + 1);
        const asked = buildContextWindow(state.path, { includeThoughts: true });
        expect(asked.items.at(-1)).toMatchObject({ kind: 'thought', content: thought.content, steps: thought.steps, version: state.head });
      }),
      { numRuns: RUNS },
    );
    expect(recorded).toBeGreaterThan(RUNS / 2);
  });

  it('a thought belongs to its branch: after moving the head before it, it is gone from the path (and back on redo)', () => {
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 20 }), thoughtArb, (intents, thought) => {
        const { state, record } = sessionAfter(intents);
        if (state.activeRollbackId !== null) return;
        const headBefore = state.head;
        record({ type: 'RecordThought', content: thought.content });
        const version = state.head;
        record({ type: 'MoveHead', kind: 'rollback', toVersion: headBefore, acknowledgeIrreversible: true });
        if (state.activeRollbackId !== null) return; // effects to compensate: the saga would finish the move
        expect(state.path.thoughts.some((t) => t.version === version)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('RecordThought refusals', () => {
  const refusal = (command: Parameters<typeof decide>[1]): { kind: DomainErrorKind; code: string } => {
    const { record } = sessionAfter([]);
    try {
      record(command);
    } catch (error) {
      return { kind: (error as DomainError).kind, code: (error as DomainError).code };
    }
    throw new Error('not refused');
  };
  it('refuses an empty thought and an unknown turn, in the documented shape', () => {
    expect(refusal({ type: 'RecordThought', content: '', steps: ['', ''] })).toEqual({ kind: 'validation', code: 'validation_failed' });
    expect(refusal({ type: 'RecordThought', content: 'x', turnId: 'nope' })).toEqual({ kind: 'not_found', code: 'turn_not_found' });
  });
  it('attaches a thought to the latest turn unless told otherwise', () => {
    const { state, record } = sessionAfter([]);
    record({ type: 'RecordMessage', role: 'user', content: 'hi', turnId: 't1' });
    record({ type: 'RecordThought', content: 'the user greets me', steps: ['greet back'] });
    expect(state.path.thoughts).toEqual([{ thoughtId: expect.any(String), turnId: 't1', content: 'the user greets me', steps: ['greet back'], version: 3 }]);
  });
});
