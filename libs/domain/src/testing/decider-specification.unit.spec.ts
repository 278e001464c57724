import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { decide } from '../decide';
import { conflict, invalid } from '../errors';
import { DeciderSpecification, recordHistory, type GivenEvent } from './decider-specification';

const started: GivenEvent = { type: 'SessionStarted', data: { sessionId: 's', title: null, metadata: {} } };
const userSaid: GivenEvent = { type: 'UserMessageReceived', data: { turnId: 't1', messageId: 'm1', content: 'hi' } };
const checkpoint: GivenEvent = { type: 'CheckpointCreated', data: { label: 'cp', version: 2 } };
const spec = DeciderSpecification.for();

describe('DeciderSpecification (the helper itself)', () => {
  it('records the given events at versions 1..n with the parents decide would give them', () => {
    const { events, state } = recordHistory([started, userSaid, checkpoint, { type: 'MemoryWritten', data: { key: 'k', value: 1 } }]);
    expect(events.map((e) => [e.streamVersion, e.parentVersion])).toEqual([
      [1, null],
      [2, 1],
      [3, null],
      [4, 2],
    ]);
    expect(state.version).toBe(4);
    expect(state.head).toBe(4);
  });

  it('keeps a parent the given event states, so a history can branch', () => {
    const { events, state } = recordHistory([started, userSaid, { type: 'MemoryWritten', data: { key: 'k', value: 1 }, parentVersion: 1 }]);
    expect(events[2]!.parentVersion).toBe(1);
    expect(state.path.turns).toEqual([]);
    expect(state.path.memory).toEqual({ k: 1 });
  });

  it('then: passes on the same events, fails on other data or another parent, returns the folded state', () => {
    const when = () => spec.given([started]).when({ type: 'WriteMemory', key: 'k', value: 1 });
    const accepted = when().then([{ type: 'MemoryWritten', data: { key: 'k', value: 1 }, parentVersion: 1 }]);
    expect(accepted.recorded.map((e) => e.streamVersion)).toEqual([2]);
    expect(accepted.state.path.memory).toEqual({ k: 1 });
    expect(() => when().then([{ type: 'MemoryWritten', data: { key: 'k', value: 2 } }])).toThrow(AssertionError);
    expect(() => when().then([{ type: 'MemoryWritten', data: { key: 'k', value: 1 }, parentVersion: null }])).toThrow(AssertionError);
    expect(() => when().then([])).toThrow(AssertionError);
  });

  it('then: fails, naming the code, when decide refuses', () => {
    expect(() => spec.given([started]).when({ type: 'PopTask' }).then([])).toThrow(/task_stack_empty/);
  });

  it('thenThrows: passes on the code, fails on another code, on acceptance, and on a kind the catalogue does not give the code', () => {
    const error = spec.given([started]).when({ type: 'PopTask' }).thenThrows('task_stack_empty');
    expect(error.kind).toBe('conflict');
    expect(() => spec.given([started]).when({ type: 'PopTask' }).thenThrows('memory_key_not_found')).toThrow(AssertionError);
    expect(() => spec.given([started]).when({ type: 'WriteMemory', key: 'k', value: 1 }).thenThrows('task_stack_empty')).toThrow(/accepted it/);
    const wrongKind = DeciderSpecification.for({
      decide: () => {
        throw invalid('task_stack_empty', 'as a validation error');
      },
    });
    expect(() => wrongKind.given([started]).when({ type: 'PopTask' }).thenThrows('task_stack_empty')).toThrow(/refused as validation, not conflict/);
  });

  it('thenThrows: runs the extra check, and lets an error that is not a DomainError through', () => {
    expect(() =>
      spec
        .given([started])
        .when({ type: 'PopTask' })
        .thenThrows('task_stack_empty', (e) => expect(e.details).toHaveLength(1)),
    ).toThrow();
    const broken = DeciderSpecification.for({
      decide: () => {
        throw new TypeError('boom');
      },
    });
    expect(() => broken.given([started]).when({ type: 'PopTask' }).thenThrows('task_stack_empty')).toThrow(TypeError);
  });

  it('fails when decide changes the state it was given, refused or not', () => {
    const mutating = (refuse: boolean) =>
      DeciderSpecification.for({
        decide: (state, command, ctx) => {
          state.path.memory.sneaky = true;
          if (refuse) throw conflict('task_stack_empty', 'refused after the harm');
          return decide(state, command, ctx);
        },
      });
    expect(() => mutating(false).given([started]).when({ type: 'WriteMemory', key: 'k', value: 1 }).then([])).toThrow(/changed the state/);
    expect(() => mutating(true).given([started]).when({ type: 'PopTask' }).thenThrows('task_stack_empty')).toThrow(/changed the state/);
  });

  it('gives each when fresh ids (id-1, id-2, …), the default actor and any context override', () => {
    spec
      .given([started])
      .when({ type: 'RecordMessage', role: 'user', content: 'hi' })
      .then([{ type: 'UserMessageReceived', data: { turnId: 'id-1', messageId: 'id-2', content: 'hi' } }]);
    spec
      .given([started])
      .when({ type: 'PushTask', title: 'x' }, { newId: () => 'fixed' })
      .then([{ type: 'TaskPushed', data: { taskId: 'fixed', title: 'x', data: null } }]);
  });
});
