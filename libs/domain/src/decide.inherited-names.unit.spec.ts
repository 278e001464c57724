import { describe, expect, it } from 'vitest';
import type { SessionCommand } from './commands';
import { DeciderSpecification } from './testing/decider-specification';
import { callStarted, checkpointCreated, memoryWritten, rollbackInProgress, started } from './testing/session-fixtures';

/**
 * Ids, labels and keys are the caller's text, and the state keeps them as keys of plain
 * objects. A name that Object.prototype already has ("constructor", "toString", …) must not
 * be mistaken for an entry the session has; and "__proto__" cannot be an entry at all
 * (assigning it replaces the object's prototype, so the fold would lose the entry).
 */
const spec = DeciderSpecification.for();
const INHERITED = ['constructor', 'toString', 'hasOwnProperty', 'valueOf'];

describe('decide: names Object.prototype already has are nothing until recorded', () => {
  it.each(INHERITED)('"%s" names no tool call, memory key, checkpoint or rollback of a new session', (name) => {
    spec.given([started]).when({ type: 'EraseMemory', key: name }).thenThrows('memory_key_not_found');
    spec.given([started]).when({ type: 'CompleteToolCall', toolCallId: name, output: {} }).thenThrows('tool_call_not_found');
    spec.given([started]).when({ type: 'FailToolCall', toolCallId: name, error: 'x' }).thenThrows('tool_call_not_found');
    spec.given([started]).when({ type: 'MoveHead', kind: 'rollback', toCheckpoint: name }).thenThrows('checkpoint_not_found');
    const rollbackCommands: SessionCommand[] = [
      { type: 'CompleteRollback', rollbackId: name },
      { type: 'RetryCompensation', rollbackId: name, toolCallId: 'book-1' },
      { type: 'ResolveCompensation', rollbackId: name, toolCallId: 'book-1', note: '' },
      { type: 'RecordCompensationOutcome', rollbackId: name, startedVersion: 2, outcome: { status: 'applied', attempts: 1, response: null } },
    ];
    for (const command of rollbackCommands) spec.given(rollbackInProgress).when(command).thenThrows('rollback_not_found');
  });

  it.each(INHERITED)('"%s" can name a tool call, a memory key and a checkpoint', (name) => {
    spec
      .given([started])
      .when({ type: 'StartToolCall', toolCallId: name, tool: 'search', input: {} })
      .then([{ type: 'ToolCallStarted', data: { toolCallId: name, tool: 'search', input: {}, effect: { kind: 'none' }, confirmed: false, turnId: null } }]);
    spec
      .given([started, callStarted(name)])
      .when({ type: 'CompleteToolCall', toolCallId: name, output: 1 })
      .then([{ type: 'ToolCallSucceeded', data: { toolCallId: name, output: 1 } }]);
    spec
      .given([started, memoryWritten(name, 1)])
      .when({ type: 'EraseMemory', key: name })
      .then([{ type: 'MemoryErased', data: { key: name } }]);
    spec
      .given([started])
      .when({ type: 'CreateCheckpoint', label: name })
      .then([{ type: 'CheckpointCreated', data: { label: name, version: 1 } }]);
    spec
      .given([started, checkpointCreated(name, 1), memoryWritten('k', 1)])
      .when({ type: 'MoveHead', kind: 'rollback', toCheckpoint: name })
      .then([
        { type: 'RollbackRequested', data: { rollbackId: 's~id-1', kind: 'rollback', fromVersion: 3, toVersion: 1, plan: [], acknowledgeIrreversible: false } },
        { type: 'RollbackCompleted', data: { rollbackId: 's~id-1', toVersion: 1 } },
      ]);
  });
});

describe('decide: "__proto__" cannot name an entry of the state', () => {
  it.each([
    ['toolCallId', { type: 'StartToolCall', toolCallId: '__proto__', tool: 'search', input: {} }],
    ['label', { type: 'CreateCheckpoint', label: '__proto__' }],
    ['key', { type: 'WriteMemory', key: '__proto__', value: { polluted: true } }],
    ['name', { type: 'SetContextVariable', name: '__proto__', value: { polluted: true } }],
  ] as [string, SessionCommand][])('validation_failed: "__proto__" as a new %s', (field, command) => {
    spec
      .given([started])
      .when(command)
      .thenThrows('validation_failed', (e) => expect(e.details).toEqual([{ field, message: 'reserved name' }]));
  });

  it('"__proto__" names no tool call, memory key or checkpoint', () => {
    spec.given([started]).when({ type: 'EraseMemory', key: '__proto__' }).thenThrows('memory_key_not_found');
    spec.given([started]).when({ type: 'CompleteToolCall', toolCallId: '__proto__', output: {} }).thenThrows('tool_call_not_found');
    spec.given([started]).when({ type: 'MoveHead', kind: 'rollback', toCheckpoint: '__proto__' }).thenThrows('checkpoint_not_found');
    spec.given(rollbackInProgress).when({ type: 'CompleteRollback', rollbackId: '__proto__' }).thenThrows('rollback_not_found');
  });
});
