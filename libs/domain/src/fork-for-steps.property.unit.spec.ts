import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStepCommand, type SessionCommand } from './commands';
import { decide } from './decide';
import { DomainError } from './errors';
import type { RecordedSessionEvent } from './events';
import { evolveInPlace } from './evolve';
import { foldPath } from './replay';
import { scratchForSteps } from './scratch-state';
import { cloneState, initialSessionState, type SessionState } from './state';
import { recordedAt } from './testing/recorded';
import { commandsFor, intentArb, type Intent } from './testing/arbitraries';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 1000);
const stepIntent = intentArb.filter((i) => !['rollback', 'toCheckpoint', 'undo', 'redo'].includes(i.kind));

/** Decides and folds commands into `state` in place (a refused one is skipped); returns the commands accepted. */
function apply(state: SessionState, events: RecordedSessionEvent[], commands: SessionCommand[]): SessionCommand[] {
  const accepted: SessionCommand[] = [];
  for (const command of commands) {
    let ids = 0;
    let decided;
    try {
      decided = decide(state, command, { newId: () => `id-${events.length}-${++ids}`, actor: 'tester', pathAt: (v) => foldPath(events, v) });
    } catch (error) {
      if (error instanceof DomainError) continue;
      throw error;
    }
    accepted.push(command);
    for (const pending of decided.events) {
      const event = recordedAt(pending, events.length + 1);
      events.push(event);
      evolveInPlace(state, event, (v) => foldPath(events, v));
    }
  }
  return accepted;
}

/** Turns intents into commands against the state as it evolves, and applies them. */
function run(state: SessionState, events: RecordedSessionEvent[], intents: Intent[], onlySteps: boolean): SessionCommand[] {
  return intents.flatMap((intent) =>
    apply(
      state,
      events,
      commandsFor(intent, state).filter((c) => !onlySteps || isStepCommand(c)),
    ),
  );
}

describe('scratchForSteps (property-based)', () => {
  it('steps folded into a scratch state leave the original untouched and the scratch equal to a deep copy folded the same way', () => {
    let forkedSteps = 0;
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 30 }), fc.array(stepIntent, { minLength: 1, maxLength: 15 }), (history, steps) => {
        const events: RecordedSessionEvent[] = [];
        const state = initialSessionState();
        apply(state, events, [{ type: 'StartSession', sessionId: 's' }]);
        run(state, events, history, false);
        const before = cloneState(state);

        const forkEvents = [...events];
        const fork = scratchForSteps(state);
        // Also finish calls the history left open: steps that change objects the fork shares a parent with.
        const finishOpen: SessionCommand[] = Object.values(state.path.toolCalls)
          .filter((c) => c.status === 'started')
          .map((c, i) =>
            i % 2
              ? { type: 'FailToolCall', toolCallId: c.toolCallId, error: 'x', retryable: true }
              : { type: 'CompleteToolCall', toolCallId: c.toolCallId, output: i },
          );
        const accepted = [...apply(fork, forkEvents, finishOpen), ...run(fork, forkEvents, steps, true)];
        forkedSteps += accepted.length;
        const copy = cloneState(state);
        expect(apply(copy, [...events], accepted)).toEqual(accepted);

        expect(state).toEqual(before);
        expect(fork).toEqual(copy);
      }),
      { numRuns: RUNS },
    );
    expect(forkedSteps).toBeGreaterThan(RUNS);
  });
});
