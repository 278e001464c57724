import assert from 'node:assert/strict';
import type { SessionCommand } from '../commands';
import { decide, type DecideContext, type Decision, type PendingEvent } from '../decide';
import { DomainError } from '../errors';
import { isStepEvent, type RecordedSessionEvent, type SessionEvent } from '../events';
import { evolveInPlace } from '../evolve';
import { foldPath } from '../replay';
import { cloneState, initialSessionState, type SessionState } from '../state';
import { recordedAt } from './recorded';
import { REFUSALS, type RefusalCode } from './refusals';

/**
 * Given / when / then for `decide`, after Emmett's `DeciderSpecification`:
 *
 *     const spec = DeciderSpecification.for({ context: { compensationEnabled: true } });
 *     spec.given([started]).when({ type: 'PopTask' }).thenThrows('task_stack_empty');
 *     spec.given([started]).when({ type: 'WriteMemory', key: 'k', value: 1 }).then([{ type: 'MemoryWritten', data: { key: 'k', value: 1 } }]);
 *
 * Pure: the given events are recorded at versions 1..n (`recordedAt`) and folded with
 * `evolveInPlace`; head moves read target paths with `foldPath` over them. Assertions use
 * `node:assert/strict`, so the helper needs no test framework (vitest shows its diffs).
 *
 * Every `when` also checks that `decide` left its input state as it found it, whether it
 * accepted or refused the command.
 */

/** A prior event. Its parent is the head at that point (as `decide` would set it) unless stated. */
export type GivenEvent = SessionEvent & { parentVersion?: number | null };

/** A decided event as expected: type and data always compared, `parentVersion` only when stated. */
export type ExpectedEvent = SessionEvent & { parentVersion?: number | null };

/**
 * What a `when` runs `decide` with. Defaults: `newId` counts `id-1`, `id-2`, … afresh for
 * each `when`; `actor` is `tester`; `pathAt` folds the given events.
 */
export type SpecificationContext = Partial<DecideContext>;

export interface History {
  events: RecordedSessionEvent[];
  state: SessionState;
}

export interface Accepted {
  decision: Decision;
  /** The decided events, recorded after the given ones. */
  recorded: RecordedSessionEvent[];
  /** The state once the decided events are folded in. */
  state: SessionState;
}

/** Records events at versions 1..n, with the parents `decide` would give them, and folds them. */
export function recordHistory(given: readonly GivenEvent[]): History {
  const events: RecordedSessionEvent[] = [];
  const state = initialSessionState();
  for (const event of given) append(state, events, { ...event, parentVersion: parentFor(state, event) });
  return { events, state };
}

function parentFor(state: SessionState, event: GivenEvent): number | null {
  if (event.parentVersion !== undefined) return event.parentVersion;
  return isStepEvent(event.type) ? state.head || null : null;
}

function append(state: SessionState, events: RecordedSessionEvent[], pending: PendingEvent): RecordedSessionEvent {
  const recorded = recordedAt(pending, events.length + 1);
  events.push(recorded);
  evolveInPlace(state, recorded, (v) => foldPath(events, v));
  return recorded;
}

const describeError = (error: unknown) => (error instanceof DomainError ? `${error.code} (${error.message})` : String(error));
const typesOf = (events: readonly { type: string }[]) => `[${events.map((e) => e.type).join(', ')}]`;

export type Decide = typeof decide;

export class WhenCommand {
  private outcome?: { decision: Decision; error?: undefined } | { decision?: undefined; error: unknown };

  constructor(
    private readonly decider: Decide,
    private readonly history: History,
    private readonly command: SessionCommand,
    private readonly context: SpecificationContext,
  ) {}

  /** Runs `decide` once; fails if it changed the state it was given. */
  private run() {
    if (this.outcome) return this.outcome;
    const { state, events } = this.history;
    const before = cloneState(state);
    let ids = 0;
    const ctx: DecideContext = { newId: () => `id-${++ids}`, actor: 'tester', pathAt: (v) => foldPath(events, v), ...this.context };
    try {
      this.outcome = { decision: this.decider(state, this.command, ctx) };
    } catch (error) {
      this.outcome = { error };
    }
    assert.deepStrictEqual(state, before, `when ${this.command.type}: decide changed the state it was given`);
    return this.outcome;
  }

  /** The command is accepted with exactly these events (in order). */
  then(expected: readonly ExpectedEvent[]): Accepted {
    const { decision, error } = this.run();
    if (!decision) {
      if (!(error instanceof DomainError)) throw error;
      assert.fail(`when ${this.command.type}: expected ${typesOf(expected)} but decide refused it: ${describeError(error)}`);
    }
    const shape = (event: ExpectedEvent | PendingEvent, withParent: boolean) =>
      withParent ? { type: event.type, data: event.data, parentVersion: event.parentVersion } : { type: event.type, data: event.data };
    const actual = decision.events.map((event, i) => shape(event, expected[i] !== undefined && 'parentVersion' in expected[i]));
    assert.deepStrictEqual(
      actual,
      expected.map((event) => shape(event, 'parentVersion' in event)),
      `when ${this.command.type}: the decided events differ from the expected ones`,
    );
    const state = cloneState(this.history.state);
    const events = [...this.history.events];
    const recorded = decision.events.map((pending) => append(state, events, pending));
    return { decision, recorded, state };
  }

  /** The command is refused with a DomainError of this code (and the kind the catalogue gives it). */
  thenThrows(code: RefusalCode, check?: (error: DomainError) => void): DomainError {
    const { decision, error } = this.run();
    if (decision) assert.fail(`when ${this.command.type}: expected refusal "${code}" but decide accepted it with ${typesOf(decision.events)}`);
    if (!(error instanceof DomainError)) throw error;
    assert.equal(error.code, code, `when ${this.command.type}: refused with "${error.code}" (${error.message}), not "${code}"`);
    assert.equal(error.kind, REFUSALS[code].kind, `when ${this.command.type}: "${code}" refused as ${error.kind}, not ${REFUSALS[code].kind}`);
    assert.ok(error.message.length > 0, `when ${this.command.type}: "${code}" has no message`);
    check?.(error);
    return error;
  }
}

export interface GivenHistory {
  when(command: SessionCommand, context?: SpecificationContext): WhenCommand;
}

export interface DeciderSpecificationFor {
  given(events?: readonly GivenEvent[]): GivenHistory;
}

export interface SpecificationOptions {
  /** The function under test: the domain's `decide` unless a test of this helper swaps it. */
  decide?: Decide;
  /** Context for every `when`; a `when` may override any of it. */
  context?: SpecificationContext;
}

export const DeciderSpecification = {
  for({ decide: decider = decide, context: defaults = {} }: SpecificationOptions = {}): DeciderSpecificationFor {
    return {
      given(events: readonly GivenEvent[] = []) {
        return {
          // Recorded afresh for each `when`, so that no case can see another's state.
          when: (command, context = {}) => new WhenCommand(decider, recordHistory(events), command, { ...defaults, ...context }),
        };
      },
    };
  },
};
