import { describe, expect, it, type RunnerTask, type RunnerTestFile } from 'vitest';
import type { SessionCommand, SessionCommandType } from './commands';
import { decide } from './decide';
import type { EffectDescriptor } from './effects';
import { DomainError } from './errors';
import type { JsonValue } from './json';
import { DeciderSpecification, type GivenEvent } from './testing/decider-specification';
import { REFUSAL_CODES } from './testing/refusals';
import {
  agentSaid,
  booked,
  bookingEffect,
  callFailed,
  callStarted,
  callSucceeded,
  cancelBooking,
  chargeCard,
  checkpointCreated,
  compensation,
  memoryWritten,
  planned,
  ROLLBACK_ID,
  rollbackCompleted,
  rollbackInProgress,
  rollbackNeedsAttention,
  rollbackRequested,
  rolledBackPastBooking,
  started,
  taskPushed,
  userSaid,
} from './testing/session-fixtures';

/** Every refusal decide can produce (testing/refusals.ts), each given the history that provokes it. */

const refusedWith = new Set<string>();
const spec = DeciderSpecification.for({
  decide: (state, command, ctx) => {
    try {
      return decide(state, command, ctx);
    } catch (error) {
      if (error instanceof DomainError) refusedWith.add(error.code);
      throw error;
    }
  },
});

/** One command of every type but StartSession (the compiler checks that none is missing). */
const ONE_OF_EACH: { [T in Exclude<SessionCommandType, 'StartSession'>]: Extract<SessionCommand, { type: T }> } = {
  RecordMessage: { type: 'RecordMessage', role: 'user', content: 'hi' },
  StartToolCall: { type: 'StartToolCall', toolCallId: 'c9', tool: 'search', input: {} },
  ProposeToolCall: { type: 'ProposeToolCall', toolCallId: 'p9', tool: 'charge_card', input: { amount: 5 } },
  ApproveToolCall: { type: 'ApproveToolCall', toolCallId: 'p1' },
  RejectToolCall: { type: 'RejectToolCall', toolCallId: 'p1', reason: 'too expensive' },
  CompleteToolCall: { type: 'CompleteToolCall', toolCallId: 'book-1', output: { bookingId: 'B1' } },
  FailToolCall: { type: 'FailToolCall', toolCallId: 'book-1', error: 'x' },
  WriteMemory: { type: 'WriteMemory', key: 'k', value: 1 },
  EraseMemory: { type: 'EraseMemory', key: 'k' },
  SetContextVariable: { type: 'SetContextVariable', name: 'n', value: 1 },
  PushTask: { type: 'PushTask', title: 't' },
  PopTask: { type: 'PopTask' },
  InterruptTurn: { type: 'InterruptTurn', turnId: 't1', partialContent: '' },
  RecordThought: { type: 'RecordThought', content: 'weigh the options' },
  CreateCheckpoint: { type: 'CreateCheckpoint', label: 'cp' },
  NameBranch: { type: 'NameBranch', version: 1, name: 'main' },
  MoveHead: { type: 'MoveHead', kind: 'undo' },
  RecordCompensationOutcome: {
    type: 'RecordCompensationOutcome',
    rollbackId: ROLLBACK_ID,
    startedVersion: 2,
    outcome: { status: 'applied', attempts: 1, response: null },
  },
  CompleteRollback: { type: 'CompleteRollback', rollbackId: ROLLBACK_ID },
  RetryCompensation: { type: 'RetryCompensation', rollbackId: ROLLBACK_ID, toolCallId: 'book-1' },
  ResolveCompensation: { type: 'ResolveCompensation', rollbackId: ROLLBACK_ID, toolCallId: 'book-1', note: 'done by hand' },
  RecordShredding: { type: 'RecordShredding', keyIds: ['dk_1'], reason: 'test' },
};
const ROLLBACK_COMMANDS = ['RecordCompensationOutcome', 'CompleteRollback', 'RetryCompensation', 'ResolveCompensation'];
const everyCommand = Object.values(ONE_OF_EACH) as SessionCommand[];
// A shredding is recorded whatever the session is doing: its keys are already destroyed.
const writesBlockedByARollback = everyCommand.filter((c) => !ROLLBACK_COMMANDS.includes(c.type) && c.type !== 'RecordShredding');

/** Turn t1 recorded at 2, then undone (3, 4): t1 lives only on the abandoned branch. */
const undoneTurn: GivenEvent[] = [
  started,
  userSaid('t1'),
  rollbackRequested({ rollbackId: 's~r0', kind: 'undo', fromVersion: 2, toVersion: 1 }),
  rollbackCompleted('s~r0', 1),
];
/** A step at 2 (what), undone (3, 4): the head is back at 1. */
const undone = (what: GivenEvent): GivenEvent[] => [
  started,
  what,
  rollbackRequested({ rollbackId: 's~r0', kind: 'undo', fromVersion: 2, toVersion: 1 }),
  rollbackCompleted('s~r0', 1),
];

describe('refusals of any command', () => {
  it.each(everyCommand.map((c) => [c.type, c] as const))('session_not_found: %s before the session started', (_, command) => {
    spec.given([]).when(command).thenThrows('session_not_found');
  });

  it('session_exists: StartSession on a started session, even during a rollback', () => {
    spec.given([started]).when({ type: 'StartSession', sessionId: 's' }).thenThrows('session_exists');
    spec.given(rollbackInProgress).when({ type: 'StartSession', sessionId: 's' }).thenThrows('session_exists');
  });

  it.each(writesBlockedByARollback.map((c) => [c.type, c] as const))('rollback_in_progress: %s while a rollback runs, naming it', (_, command) => {
    spec
      .given(rollbackInProgress)
      .when(command)
      .thenThrows('rollback_in_progress', (e) => expect(e.details).toEqual([expect.objectContaining({ rollbackId: ROLLBACK_ID })]));
  });

  it('rollback_in_progress: also while the rollback needs attention (and says so)', () => {
    spec
      .given(rollbackNeedsAttention)
      .when({ type: 'WriteMemory', key: 'k', value: 1 })
      .thenThrows('rollback_in_progress', (e) => expect(e.message).toContain('needs_attention'));
  });
});

describe('refusals of RecordMessage', () => {
  it('turn_not_found: an agent message naming an unknown turn', () => {
    spec
      .given([started, userSaid('t1')])
      .when({ type: 'RecordMessage', role: 'agent', content: 'x', turnId: 'nope' })
      .thenThrows('turn_not_found', (e) => expect(e.details).toEqual([{ field: 'turnId', message: 'unknown turn' }]));
  });

  it('turn_not_found: an agent message naming a turn only an abandoned branch has', () => {
    spec.given(undoneTurn).when({ type: 'RecordMessage', role: 'agent', content: 'x', turnId: 't1' }).thenThrows('turn_not_found');
  });
});

describe('refusals of StartToolCall', () => {
  const call = (extra: Partial<Extract<SessionCommand, { type: 'StartToolCall' }>> = {}): SessionCommand => ({
    type: 'StartToolCall',
    toolCallId: 'c1',
    tool: 'book_hotel',
    input: { city: 'Lisbon' },
    ...extra,
  });
  const effect = (compensation: EffectDescriptor['compensation'], kind: EffectDescriptor['kind'] = 'reversible'): Partial<EffectDescriptor> => ({
    kind,
    ...(compensation ? { compensation } : {}),
  });

  it('tool_call_exists: the id of a call in progress or that succeeded', () => {
    spec
      .given([started, callStarted('c1')])
      .when(call())
      .thenThrows('tool_call_exists', (e) => expect(e.message).toContain('status started'));
    spec
      .given([started, callStarted('c1'), callSucceeded('c1')])
      .when(call())
      .thenThrows('tool_call_exists', (e) => expect(e.message).toContain('status succeeded'));
  });

  it('confirmation_required: an irreversible call, declared or registered, without confirmed: true', () => {
    const onConfirmed = (e: DomainError) => expect(e.details).toEqual([{ field: 'confirmed', message: 'must be true for an irreversible effect' }]);
    spec
      .given([started])
      .when(call({ effect: chargeCard }))
      .thenThrows('confirmation_required', onConfirmed);
    spec
      .given([started])
      .when(call({ effect: chargeCard, confirmed: false }))
      .thenThrows('confirmation_required', onConfirmed);
    spec
      .given([started])
      .when(call(), { toolEffect: () => chargeCard })
      .thenThrows('confirmation_required', onConfirmed);
    // A registered effect that a call's declaration turns irreversible.
    spec
      .given([started])
      .when(call({ effect: { kind: 'irreversible' } }), { toolEffect: () => cancelBooking })
      .thenThrows('confirmation_required');
  });

  it('turn_not_found: a call naming a turn not on the path', () => {
    spec
      .given([started, userSaid('t1')])
      .when(call({ turnId: 'nope' }))
      .thenThrows('turn_not_found', (e) => expect(e.details[0]!.field).toBe('turnId'));
    spec
      .given(undoneTurn)
      .when(call({ turnId: 't1' }))
      .thenThrows('turn_not_found');
  });

  it('compensation_missing: a reversible or compensable effect with no compensation, declared or registered', () => {
    const onCompensation = (e: DomainError) => expect(e.details[0]!.field).toBe('compensation');
    spec
      .given([started])
      .when(call({ effect: { kind: 'reversible' } }))
      .thenThrows('compensation_missing', onCompensation);
    spec
      .given([started])
      .when(call({ effect: { kind: 'compensable' } }))
      .thenThrows('compensation_missing', onCompensation);
    spec
      .given([started])
      .when(call(), { toolEffect: () => ({ kind: 'compensable' }) })
      .thenThrows('compensation_missing', onCompensation);
  });

  it('compensation_template_invalid: braces that are not {{input…}} or {{output…}}, in the target or the payload', () => {
    spec
      .given([started])
      .when(call({ effect: effect({ channel: 'http', target: 'https://hotel.example/cancel/{{bookingId}}' }) }))
      .thenThrows('compensation_template_invalid', (e) => expect(e.details).toEqual([expect.objectContaining({ field: 'compensation.target' })]));
    spec
      .given([started])
      .when(call({ effect: effect({ channel: 'inline', target: 'cancel', payload: { ids: ['{{output.id}}', '{{ secrets.key }}'] } }) }))
      .thenThrows('compensation_template_invalid', (e) => expect(e.details).toEqual([expect.objectContaining({ field: 'compensation.payload.ids[1]' })]));
  });

  it('validation_failed: a retry policy whose base delay exceeds its cap', () => {
    spec
      .given([started])
      .when(call({ effect: { ...cancelBooking, retry: { maxAttempts: 3, baseDelayMs: 5000, maxDelayMs: 100, timeoutMs: 1000 } } }))
      .thenThrows('validation_failed', (e) => expect(e.details[0]!.field).toBe('retry.baseDelayMs'));
  });

  it('compensation_template_unresolvable: an input without a field the compensation needs', () => {
    const needsInput = effect({ channel: 'inline', target: 'release', payload: { city: '{{input.city}}', street: '{{input.address.street}}' } });
    spec
      .given([started])
      .when(call({ input: { address: {} }, effect: needsInput }))
      .thenThrows('compensation_template_unresolvable', (e) => expect(e.details.map((d) => d.field)).toEqual(['input.city', 'input.address.street']));
    spec
      .given([started])
      .when(call({ input: 'Lisbon', effect: needsInput }))
      .thenThrows('compensation_template_unresolvable');
  });
});

describe('refusals of CompleteToolCall and FailToolCall', () => {
  const complete = (toolCallId = 'c1'): SessionCommand => ({ type: 'CompleteToolCall', toolCallId, output: {} });
  const fail = (toolCallId = 'c1'): SessionCommand => ({ type: 'FailToolCall', toolCallId, error: 'x' });

  it('tool_call_not_found: a call never started, or started only on an abandoned branch', () => {
    for (const command of [complete(), fail()]) {
      spec.given([started]).when(command).thenThrows('tool_call_not_found');
      spec
        .given(undone(callStarted('c1')))
        .when(command)
        .thenThrows('tool_call_not_found');
    }
  });

  it('tool_call_not_in_progress: a call that already succeeded or failed', () => {
    for (const command of [complete(), fail()]) {
      spec
        .given([started, callStarted('c1'), callSucceeded('c1')])
        .when(command)
        .thenThrows('tool_call_not_in_progress', (e) => expect(e.message).toContain('already succeeded'));
      spec
        .given([started, callStarted('c1'), callFailed('c1')])
        .when(command)
        .thenThrows('tool_call_not_in_progress', (e) => expect(e.message).toContain('already failed'));
    }
  });

  it('compensation_template_unresolvable: an output without the field the compensation needs', () => {
    for (const output of [{}, null, 'B1', { booking: { bookingId: 'B1' } }] as JsonValue[]) {
      spec
        .given(booked.slice(0, 2))
        .when({ type: 'CompleteToolCall', toolCallId: 'book-1', output })
        .thenThrows('compensation_template_unresolvable', (e) => expect(e.details).toEqual([expect.objectContaining({ field: 'output.bookingId' })]));
    }
  });
});

describe('refusals of memory, task, interrupt and checkpoint steps', () => {
  it('memory_key_not_found: erasing a key never written, already erased, or written only on an abandoned branch', () => {
    const erase: SessionCommand = { type: 'EraseMemory', key: 'city' };
    spec
      .given([started, memoryWritten('other', 1)])
      .when(erase)
      .thenThrows('memory_key_not_found');
    spec
      .given([started, memoryWritten('city', 'Lisbon'), { type: 'MemoryErased', data: { key: 'city' } }])
      .when(erase)
      .thenThrows('memory_key_not_found');
    spec
      .given(undone(memoryWritten('city', 'Lisbon')))
      .when(erase)
      .thenThrows('memory_key_not_found');
  });

  it('task_stack_empty: popping with no task, or after the last one was popped', () => {
    spec.given([started]).when({ type: 'PopTask' }).thenThrows('task_stack_empty');
    spec
      .given([started, taskPushed('k1'), { type: 'TaskPopped', data: { taskId: 'k1' } }])
      .when({ type: 'PopTask' })
      .thenThrows('task_stack_empty');
    spec
      .given(undone(taskPushed('k1')))
      .when({ type: 'PopTask' })
      .thenThrows('task_stack_empty');
  });

  it('turn_not_found: interrupting an unknown turn', () => {
    spec
      .given([started, userSaid('t1')])
      .when({ type: 'InterruptTurn', turnId: 'nope', partialContent: '' })
      .thenThrows('turn_not_found');
    spec.given(undoneTurn).when({ type: 'InterruptTurn', turnId: 't1', partialContent: '' }).thenThrows('turn_not_found');
  });

  it('turn_not_open: interrupting a turn already answered or already interrupted', () => {
    const interrupt: SessionCommand = { type: 'InterruptTurn', turnId: 't1', partialContent: 'Let me' };
    spec
      .given([started, userSaid('t1'), agentSaid('t1')])
      .when(interrupt)
      .thenThrows('turn_not_open', (e) => expect(e.message).toContain('already complete'));
    spec
      .given([started, userSaid('t1'), { type: 'TurnInterrupted', data: { turnId: 't1', partialContent: 'The' } }])
      .when(interrupt)
      .thenThrows('turn_not_open', (e) => expect(e.message).toContain('already interrupted'));
  });

  it('checkpoint_exists: a label already used, on this branch or an abandoned one', () => {
    spec
      .given([started, checkpointCreated('cp', 1)])
      .when({ type: 'CreateCheckpoint', label: 'cp' })
      .thenThrows('checkpoint_exists');
    spec
      .given([...undone(userSaid('t1')).slice(0, 2), checkpointCreated('cp', 2), ...undone(userSaid('t1')).slice(2)])
      .when({ type: 'CreateCheckpoint', label: 'cp' })
      .thenThrows('checkpoint_exists', (e) => expect(e.message).toContain('version 2'));
  });
});

describe('refusals of MoveHead: the target', () => {
  const steps = [started, userSaid('t1'), checkpointCreated('cp', 2), memoryWritten('k', 1)];

  it('nothing_to_undo: at the first step', () => {
    spec.given([started]).when({ type: 'MoveHead', kind: 'undo' }).thenThrows('nothing_to_undo');
    spec.given(undoneTurn).when({ type: 'MoveHead', kind: 'undo', steps: 3 }).thenThrows('nothing_to_undo');
  });

  it('nothing_to_redo: with no backward move, or after a new step cleared the redo stack', () => {
    spec.given(steps).when({ type: 'MoveHead', kind: 'redo' }).thenThrows('nothing_to_redo');
    spec
      .given([...undoneTurn, memoryWritten('k', 1)])
      .when({ type: 'MoveHead', kind: 'redo' })
      .thenThrows('nothing_to_redo');
  });

  it('checkpoint_not_found: an unknown label, listing the known ones', () => {
    spec
      .given(steps)
      .when({ type: 'MoveHead', kind: 'rollback', toCheckpoint: 'nope' })
      .thenThrows('checkpoint_not_found', (e) => expect(e.details).toEqual([{ field: 'toCheckpoint', message: 'known labels: cp' }]));
  });

  it('validation_failed: a rollback with neither toVersion nor toCheckpoint', () => {
    spec
      .given(steps)
      .when({ type: 'MoveHead', kind: 'rollback' })
      .thenThrows('validation_failed', (e) => expect(e.details[0]!.field).toBe('toVersion'));
  });

  it('version_not_found: a version after the last one', () => {
    spec
      .given(steps)
      .when({ type: 'MoveHead', kind: 'rollback', toVersion: 5 })
      .thenThrows('version_not_found', (e) => expect(e.details).toEqual([{ field: 'toVersion', message: 'must be between 1 and 4' }]));
  });

  it('not_a_step: a checkpoint record, a rollback record, or version 0', () => {
    spec.given(steps).when({ type: 'MoveHead', kind: 'rollback', toVersion: 3 }).thenThrows('not_a_step');
    spec.given(undoneTurn).when({ type: 'MoveHead', kind: 'rollback', toVersion: 4 }).thenThrows('not_a_step');
    spec.given(steps).when({ type: 'MoveHead', kind: 'rollback', toVersion: 0 }).thenThrows('not_a_step');
  });

  it('already_at_version: the head itself', () => {
    spec.given(steps).when({ type: 'MoveHead', kind: 'rollback', toVersion: 4 }).thenThrows('already_at_version');
    spec.given(undoneTurn).when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 }).thenThrows('already_at_version');
  });
});

describe('refusals of MoveHead: the effects on the way', () => {
  const booking = { message: 'book_hotel call "book-1" (version 2)', toolCallId: 'book-1', tool: 'book_hotel', startedVersion: 2 };

  it('compensated_effects_on_path: redo, or a jump, back over a booking the rollback cancelled', () => {
    const names = (e: DomainError) => expect(e.details).toEqual([booking]);
    spec.given(rolledBackPastBooking).when({ type: 'MoveHead', kind: 'redo' }).thenThrows('compensated_effects_on_path', names);
    spec
      .given([...rolledBackPastBooking, memoryWritten('k', 1)])
      .when({ type: 'MoveHead', kind: 'rollback', toVersion: 3 })
      .thenThrows('compensated_effects_on_path', names);
  });

  it('compensated_effects_on_path: also over an effect an operator resolved by hand', () => {
    const resolved: GivenEvent = {
      type: 'CompensationResolved',
      data: { rollbackId: ROLLBACK_ID, toolCallId: 'book-1', startedVersion: 2, resolvedBy: 'operator', note: 'by phone' },
    };
    spec
      .given([...rollbackNeedsAttention, resolved, rollbackCompleted(ROLLBACK_ID, 1)])
      .when({ type: 'MoveHead', kind: 'redo' }, { compensationEnabled: true })
      .thenThrows('compensated_effects_on_path');
  });

  it('compensation_required: abandoning a booking while no saga compensates', () => {
    const names = (e: DomainError) => expect(e.details).toEqual([booking]);
    spec.given(booked).when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 }).thenThrows('compensation_required', names);
    spec.given(booked).when({ type: 'MoveHead', kind: 'undo' }, { compensationEnabled: false }).thenThrows('compensation_required', names);
  });

  it('irreversible_not_acknowledged: abandoning a payment without acknowledgeIrreversible: true', () => {
    const paid = [started, callStarted('pay-1', chargeCard, { tool: 'charge_card' }), callSucceeded('pay-1')];
    const names = (e: DomainError) =>
      expect(e.details).toEqual([{ message: 'charge_card call "pay-1" (version 2)', toolCallId: 'pay-1', tool: 'charge_card', startedVersion: 2 }]);
    spec.given(paid).when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 }).thenThrows('irreversible_not_acknowledged', names);
    spec.given(paid).when({ type: 'MoveHead', kind: 'undo', acknowledgeIrreversible: false }).thenThrows('irreversible_not_acknowledged', names);
    // A payment still in progress may have gone through: it counts too.
    spec.given(paid.slice(0, 2)).when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 }).thenThrows('irreversible_not_acknowledged');
  });
});

describe('refusals of the rollback commands', () => {
  /** Two bookings (2-3, 4-5) rolled back to 1 (6); the newer one's compensation failed (7). */
  const twoBookings: GivenEvent[] = [
    ...booked,
    callStarted('book-2', cancelBooking, { tool: 'book_hotel' }),
    callSucceeded('book-2', { bookingId: 'B2' }),
    rollbackRequested({
      rollbackId: ROLLBACK_ID,
      fromVersion: 5,
      toVersion: 1,
      plan: [planned({ ...bookingEffect, toolCallId: 'book-2', startedVersion: 4 }, 'succeeded'), planned(bookingEffect, 'succeeded')],
    }),
    { type: 'CompensationFailed', data: { rollbackId: ROLLBACK_ID, toolCallId: 'book-2', startedVersion: 4, attempts: 5, error: 'HTTP 500' } },
  ];
  /** A payment (2-3) and a booking (4-5) rolled back to 1, acknowledged: the payment is skipped (7), the booking pending. */
  const paidAndBooked: GivenEvent[] = [
    started,
    callStarted('pay-1', chargeCard, { tool: 'charge_card' }),
    callSucceeded('pay-1'),
    callStarted('book-1', cancelBooking, { tool: 'book_hotel' }),
    callSucceeded('book-1', { bookingId: 'B1' }),
    rollbackRequested({
      rollbackId: ROLLBACK_ID,
      fromVersion: 5,
      toVersion: 1,
      plan: [
        planned({ ...bookingEffect, startedVersion: 4 }, 'succeeded'),
        planned({ toolCallId: 'pay-1', tool: 'charge_card', startedVersion: 2, effect: chargeCard }, 'succeeded'),
      ],
      acknowledgeIrreversible: true,
    }),
    {
      type: 'CompensationSkipped',
      data: { rollbackId: ROLLBACK_ID, toolCallId: 'pay-1', startedVersion: 2, reason: 'irreversible: it cannot be undone', acknowledgedBy: 'tester' },
    },
  ];
  const applied = (startedVersion: number): SessionCommand => ({
    type: 'RecordCompensationOutcome',
    rollbackId: ROLLBACK_ID,
    startedVersion,
    outcome: { status: 'applied', attempts: 1, response: null },
  });

  it.each(
    Object.values(ONE_OF_EACH)
      .filter((c) => ROLLBACK_COMMANDS.includes(c.type))
      .map((c) => [c.type, { ...c, rollbackId: 's~nope' } as SessionCommand] as const),
  )('rollback_not_found: %s naming no rollback of the session', (_, command) => {
    spec.given(rollbackInProgress).when(command).thenThrows('rollback_not_found');
  });

  it('rollback_not_in_progress: completing a rollback that needs attention or is completed', () => {
    const complete: SessionCommand = { type: 'CompleteRollback', rollbackId: ROLLBACK_ID };
    spec
      .given(rollbackNeedsAttention)
      .when(complete)
      .thenThrows('rollback_not_in_progress', (e) => expect(e.message).toContain('needs_attention'));
    spec
      .given(rolledBackPastBooking)
      .when(complete)
      .thenThrows('rollback_not_in_progress', (e) => expect(e.message).toContain('completed'));
  });

  it('compensations_outstanding: completing while an effect is still to compensate, naming it', () => {
    spec
      .given(rollbackInProgress)
      .when({ type: 'CompleteRollback', rollbackId: ROLLBACK_ID })
      .thenThrows('compensations_outstanding', (e) => expect(e.details).toEqual([{ message: 'book-1', toolCallId: 'book-1' }]));
  });

  it('effect_not_in_rollback: an effect the rollback does not compensate (unknown, or skipped as irreversible)', () => {
    spec.given(rollbackInProgress).when(applied(3)).thenThrows('effect_not_in_rollback');
    spec.given(paidAndBooked).when(applied(2)).thenThrows('effect_not_in_rollback');
    spec.given(rollbackNeedsAttention).when({ type: 'RetryCompensation', rollbackId: ROLLBACK_ID, toolCallId: 'nope' }).thenThrows('effect_not_in_rollback');
    spec
      .given(paidAndBooked)
      .when({ type: 'ResolveCompensation', rollbackId: ROLLBACK_ID, toolCallId: 'pay-1', note: 'refunded' })
      .thenThrows('effect_not_in_rollback');
  });

  it('compensation_not_pending: an outcome for a compensation already applied or failed, or while the rollback needs attention', () => {
    spec
      .given([...rollbackInProgress, compensation.applied])
      .when(applied(2))
      .thenThrows('compensation_not_pending', (e) => expect(e.message).toContain('compensated'));
    spec
      .given(rollbackNeedsAttention)
      .when(applied(2))
      .thenThrows('compensation_not_pending', (e) => expect(e.message).toContain('failed'));
    // book-1 is still pending, but its rollback is stopped until an operator deals with book-2.
    spec
      .given(twoBookings)
      .when(applied(2))
      .thenThrows('compensation_not_pending', (e) => expect(e.message).toContain('pending'));
  });

  it('compensation_not_failed: retrying or resolving a compensation that is pending or applied', () => {
    spec.given(rollbackInProgress).when(ONE_OF_EACH.RetryCompensation).thenThrows('compensation_not_failed');
    spec.given(rollbackInProgress).when(ONE_OF_EACH.ResolveCompensation).thenThrows('compensation_not_failed');
    spec
      .given([...rollbackInProgress, compensation.applied])
      .when(ONE_OF_EACH.ResolveCompensation)
      .thenThrows('compensation_not_failed');
    spec
      .given(twoBookings)
      .when({ ...ONE_OF_EACH.RetryCompensation, toolCallId: 'book-1' })
      .thenThrows('compensation_not_failed');
  });
});

/** True when every test of the file is selected to run (no `-t` filter, no `.only`). */
function wholeFileRuns(file: RunnerTestFile): boolean {
  const all = (tasks: RunnerTask[]): RunnerTask[] => tasks.flatMap((t) => (t.type === 'suite' ? all(t.tasks) : [t]));
  return all(file.tasks).every((t) => t.mode === 'run');
}

describe('refusals of approvals', () => {
  const needsApproval: EffectDescriptor = { ...chargeCard, approval: 'required' };
  const proposed: GivenEvent = {
    type: 'ToolCallProposed',
    data: { toolCallId: 'p1', tool: 'charge_card', input: { amount: 5 }, effect: needsApproval, turnId: null },
  };
  const approved: GivenEvent = { type: 'ToolCallApproved', data: { toolCallId: 'p1', approvedBy: 'key:ana', note: null } };
  const rejected: GivenEvent = { type: 'ToolCallRejected', data: { toolCallId: 'p1', rejectedBy: 'key:ana', reason: 'no' } };
  const start = (extra: Partial<Extract<SessionCommand, { type: 'StartToolCall' }>> = {}): SessionCommand => ({
    type: 'StartToolCall',
    toolCallId: 'p1',
    tool: 'charge_card',
    input: { amount: 5 },
    ...extra,
  });
  const registered = { toolEffect: () => needsApproval };

  it('approval_required: a call whose tool requires approval, started without a proposal (even confirmed)', () => {
    spec
      .given([started])
      .when(start({ confirmed: true }), registered)
      .thenThrows('approval_required');
  });
  it('approval_required: a proposed call started while pending, or after it was rejected', () => {
    spec
      .given([started, proposed])
      .when(start())
      .thenThrows('approval_required', (e) => expect(e.message).toContain('waiting for approval'));
    spec
      .given([started, proposed, rejected])
      .when(start())
      .thenThrows('approval_required', (e) => expect(e.message).toContain('rejected by key:ana'));
  });
  it('proposal_mismatch: an approved call started with other input or another tool', () => {
    spec
      .given([started, proposed, approved])
      .when(start({ input: { amount: 500 } }))
      .thenThrows('proposal_mismatch');
    spec
      .given([started, proposed, approved])
      .when(start({ tool: 'refund' }))
      .thenThrows('proposal_mismatch');
  });
  it('an approved call starts as approved: its approval stands for the confirmation', () => {
    spec
      .given([started, proposed, approved])
      .when(start({ input: { amount: 5 } }), registered)
      .then([
        {
          type: 'ToolCallStarted',
          data: { toolCallId: 'p1', tool: 'charge_card', input: { amount: 5 }, effect: needsApproval, confirmed: true, turnId: null },
        },
      ]);
  });
  it('proposal_not_found and proposal_not_pending: deciding what was not proposed, or twice', () => {
    spec.given([started]).when(ONE_OF_EACH.ApproveToolCall).thenThrows('proposal_not_found');
    spec.given(undone(proposed)).when(ONE_OF_EACH.RejectToolCall).thenThrows('proposal_not_found');
    spec.given([started, proposed, approved]).when(ONE_OF_EACH.RejectToolCall).thenThrows('proposal_not_pending');
    spec.given([started, proposed, rejected]).when(ONE_OF_EACH.ApproveToolCall).thenThrows('proposal_not_pending');
  });
  it('tool_call_exists: proposing again a call that is pending or approved', () => {
    spec
      .given([started, proposed])
      .when(ONE_OF_EACH.ProposeToolCall && { ...ONE_OF_EACH.ProposeToolCall, toolCallId: 'p1' })
      .thenThrows('tool_call_exists');
  });
});

describe('the refusal catalogue', () => {
  it('every code in it has a case above', ({ task, skip }) => {
    if (!wholeFileRuns(task.file)) skip('only part of this file ran');
    expect(REFUSAL_CODES.filter((code) => !refusedWith.has(code))).toEqual([]);
  });
});
