import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionCommand } from './commands';
import { decide } from './decide';
import { DomainError } from './errors';
import type { RecordedSessionEvent } from './events';
import { evolveInPlace } from './evolve';
import { foldPath, replay } from './replay';
import { initialSessionState, type SessionState } from './state';
import { commandsFor, intentArb, type Intent } from './testing/arbitraries';
import { recordedAt } from './testing/recorded';
import { cancelBooking } from './testing/session-fixtures';
import { ancestry, timelineView } from './timeline';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 300);

function session(intents: Intent[] = []) {
  const events: RecordedSessionEvent[] = [];
  const state = initialSessionState();
  let ids = 0;
  const ctx = { newId: () => `id-${++ids}`, actor: 'tester', pathAt: (v: number) => foldPath(events, v), compensationEnabled: true };
  const record = (command: SessionCommand) => {
    const decision = decide(state, command, ctx);
    for (const pending of decision.events) {
      const recorded = recordedAt(pending, events.length + 1);
      events.push(recorded);
      evolveInPlace(state, recorded, (v) => foldPath(events, v));
    }
    return decision;
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

const nodeBefore = (state: SessionState, pick: number): number => {
  const nodes = ancestry(state.timeline, state.head).slice(0, -1);
  return nodes[pick % Math.max(1, nodes.length)] ?? 0;
};

describe('fork from the past (property-based)', () => {
  it('a fork lands the head on the step, records its steps as a new branch from it, and leaves the old branch as it was', () => {
    let forks = 0;
    fc.assert(
      fc.property(fc.array(intentArb, { maxLength: 25 }), fc.nat(), fc.string({ minLength: 1, maxLength: 10 }), (intents, pick, text) => {
        const { state, events, record } = session(intents);
        if (state.activeRollbackId !== null) return;
        const at = nodeBefore(state, pick);
        if (at === 0) return;
        const oldHead = state.head;
        const oldPath = foldPath(events, oldHead);
        const atPath = foldPath(events, at);
        try {
          record({
            type: 'MoveHead',
            kind: 'rollback',
            toVersion: at,
            acknowledgeIrreversible: true,
            then: [
              { type: 'RecordMessage', role: 'user', content: text },
              { type: 'SetContextVariable', name: 'city', value: text },
            ],
            branchName: 'what if',
          });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          return;
        }
        forks++;
        // The new steps hang off the picked step, one after the other.
        const first = state.head - 1;
        expect(state.timeline[first - 1]).toBe(at);
        expect(state.timeline[state.head - 1]).toBe(first);
        // What the agent knows is the step's state plus the new steps, nothing from the abandoned branch.
        expect(state.path.memory).toEqual(atPath.memory);
        expect(state.path.contextVars).toEqual({ ...atPath.contextVars, city: text });
        expect(state.path.turns.at(-1)!.messages.at(-1)!.content).toBe(text);
        // The abandoned branch is intact, and the new one carries the name.
        expect(foldPath(events, oldHead)).toEqual(oldPath);
        const view = timelineView(state.timeline, state.head, state.branchNames);
        expect(view.branches.find((b) => b.tip === state.head)).toMatchObject({ name: 'what if', containsHead: true });
        expect(view.branches.find((b) => b.tip === oldHead)?.name ?? null).not.toBe('what if');
        expect(replay(events, state.version)).toEqual(state);
      }),
      { numRuns: RUNS },
    );
    expect(forks).toBeGreaterThan(RUNS / 4);
  });

  it('a fork across effects to compensate waits for the saga, then records its steps in the write that completes the rollback', () => {
    const { state, record } = session();
    record({ type: 'RecordMessage', role: 'user', content: 'book Lisbon' });
    const at = state.head;
    record({ type: 'StartToolCall', toolCallId: 'b1', tool: 'book_hotel', input: { city: 'Lisbon' }, effect: cancelBooking });
    record({ type: 'CompleteToolCall', toolCallId: 'b1', output: { bookingId: 'B1' } });
    const moved = record({
      type: 'MoveHead',
      kind: 'rollback',
      toVersion: at,
      then: [{ type: 'RecordMessage', role: 'user', content: 'Porto instead' }],
      branchName: 'porto',
    });
    expect(moved.events.map((e) => e.type)).toEqual(['RollbackRequested']);
    expect(state.status).toBe('rolling_back');
    const rollbackId = state.activeRollbackId!;
    // Writes wait for the rollback: nothing can come between the head landing and the fork's steps.
    expect(() => record({ type: 'RecordMessage', role: 'user', content: 'in between' })).toThrow(/in progress/);
    record({ type: 'RecordCompensationOutcome', rollbackId, startedVersion: at + 1, outcome: { status: 'applied', attempts: 1, response: null } });
    const completed = record({ type: 'CompleteRollback', rollbackId });
    expect(completed.events.map((e) => e.type)).toEqual(['RollbackCompleted', 'UserMessageReceived', 'BranchNamed']);
    expect(state.timeline[state.head - 1]).toBe(at);
    expect(state.path.turns.map((t) => t.messages.map((m) => m.content))).toEqual([['book Lisbon'], ['Porto instead']]);
    expect(state.pendingForks).toEqual({});
    expect(timelineView(state.timeline, state.head, state.branchNames).branches.find((b) => b.containsHead)?.name).toBe('porto');
  });

  it('refuses a fork whose steps cannot start there, before anything moves', () => {
    const { state, record } = session();
    record({ type: 'RecordMessage', role: 'user', content: 'hi' });
    const at = state.head;
    record({ type: 'WriteMemory', key: 'diet', value: 'vegan' });
    const version = state.version;
    const refused = (command: SessionCommand) => {
      try {
        record(command);
      } catch (error) {
        return { code: (error as DomainError).code, fields: (error as DomainError).details.map((d) => d.field) };
      }
      return null;
    };
    expect(refused({ type: 'MoveHead', kind: 'rollback', toVersion: at, then: [{ type: 'EraseMemory', key: 'diet' }] })).toEqual({
      code: 'memory_key_not_found',
      fields: ['steps.0'],
    });
    expect(refused({ type: 'MoveHead', kind: 'rollback', toVersion: at, then: [{ type: 'StartToolCall', toolCallId: 'x', tool: 't', input: {} }] })).toEqual({
      code: 'validation_failed',
      fields: ['steps.0'],
    });
    expect(refused({ type: 'MoveHead', kind: 'rollback', toVersion: at, then: [] })).toMatchObject({ code: 'validation_failed' });
    expect(refused({ type: 'MoveHead', kind: 'undo', then: [{ type: 'PopTask' }] })).toMatchObject({ code: 'validation_failed' });
    expect(refused({ type: 'MoveHead', kind: 'rollback', toVersion: at, branchName: 'x' })).toMatchObject({ code: 'validation_failed' });
    expect(refused({ type: 'MoveHead', kind: 'rollback', toVersion: at, then: [{ type: 'PopTask' }] })).toMatchObject({ code: 'task_stack_empty' });
    expect(state.version).toBe(version);
  });

  it('names a branch by any of its steps; a step that is not a node, or a version after the last, is refused', () => {
    const { state, record } = session();
    record({ type: 'RecordMessage', role: 'user', content: 'hi' });
    record({ type: 'CreateCheckpoint', label: 'cp' });
    record({ type: 'NameBranch', version: 2, name: 'main line' });
    expect(timelineView(state.timeline, state.head, state.branchNames).branches).toEqual([expect.objectContaining({ name: 'main line' })]);
    expect(() => record({ type: 'NameBranch', version: 3, name: 'x' })).toThrow(/not a step/);
    expect(() => record({ type: 'NameBranch', version: 99, name: 'x' })).toThrow(/does not exist/);
    expect(() => record({ type: 'NameBranch', version: 2, name: '' })).toThrow(/printable/);
  });
});
