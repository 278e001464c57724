import { describe, expect, it } from 'vitest';
import { decide } from './decide';
import { DEFAULT_RETRY_POLICY, type EffectDescriptor } from './effects';
import { DomainError } from './errors';
import { needsOperatorReason } from './head-move';
import { DeciderSpecification, recordHistory, type ExpectedEvent } from './testing/decider-specification';
import {
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
  SKIPPED_FAILED,
  SKIPPED_IRREVERSIBLE,
  started,
  taskPushed,
  userSaid,
} from './testing/session-fixtures';

/** The commands decide accepts, and the events each one decides (ids come from ctx.newId: id-1, id-2, …). */
const spec = DeciderSpecification.for();

describe('decide: StartSession', () => {
  it('starts the timeline: SessionStarted, the root (no parent)', () => {
    spec
      .given([])
      .when({ type: 'StartSession', sessionId: 's' })
      .then([{ type: 'SessionStarted', data: { sessionId: 's', title: null, metadata: {} }, parentVersion: null }]);
  });

  it('keeps the title and metadata', () => {
    spec
      .given([])
      .when({ type: 'StartSession', sessionId: 's', title: 'Trip', metadata: { lang: 'pt' } })
      .then([{ type: 'SessionStarted', data: { sessionId: 's', title: 'Trip', metadata: { lang: 'pt' } } }]);
  });
});

describe('decide: RecordMessage', () => {
  it('a user message opens a new turn, child of the head', () => {
    spec
      .given([started])
      .when({ type: 'RecordMessage', role: 'user', content: 'Find me a hotel' })
      .then([{ type: 'UserMessageReceived', data: { turnId: 'id-1', messageId: 'id-2', content: 'Find me a hotel' }, parentVersion: 1 }]);
  });

  it('a user message may name its turn', () => {
    spec
      .given([started])
      .when({ type: 'RecordMessage', role: 'user', content: 'hi', turnId: 't9' })
      .then([{ type: 'UserMessageReceived', data: { turnId: 't9', messageId: 'id-1', content: 'hi' } }]);
  });

  it('an agent message answers the latest turn unless it names one on the path', () => {
    const given = spec.given([started, userSaid('t1'), userSaid('t2')]);
    given
      .when({ type: 'RecordMessage', role: 'agent', content: 'Here' })
      .then([{ type: 'AgentMessageProduced', data: { turnId: 't2', messageId: 'id-1', content: 'Here' }, parentVersion: 3 }]);
    given
      .when({ type: 'RecordMessage', role: 'agent', content: 'Earlier', turnId: 't1' })
      .then([{ type: 'AgentMessageProduced', data: { turnId: 't1', messageId: 'id-1', content: 'Earlier' } }]);
  });

  it('an agent message before any turn gets a turn of its own', () => {
    spec
      .given([started])
      .when({ type: 'RecordMessage', role: 'agent', content: 'Welcome' })
      .then([{ type: 'AgentMessageProduced', data: { turnId: 'id-1', messageId: 'id-2', content: 'Welcome' } }]);
  });
});

describe('decide: StartToolCall', () => {
  it('a call with no declared or registered effect has none, is unconfirmed and joins the latest turn', () => {
    spec
      .given([started, userSaid('t1')])
      .when({ type: 'StartToolCall', toolCallId: 'c1', tool: 'search', input: { q: 'Lisbon' } })
      .then([
        {
          type: 'ToolCallStarted',
          data: { toolCallId: 'c1', tool: 'search', input: { q: 'Lisbon' }, effect: { kind: 'none' }, confirmed: false, turnId: 't1' },
          parentVersion: 2,
        },
      ]);
  });

  it('takes the registered effect, with the default retry policy for an effect to compensate', () => {
    const { retry: _, ...withoutRetry } = cancelBooking;
    spec
      .given([started])
      .when({ type: 'StartToolCall', toolCallId: 'book-1', tool: 'book_hotel', input: { city: 'Lisbon' } }, { toolEffect: () => withoutRetry })
      .then([
        {
          type: 'ToolCallStarted',
          data: {
            toolCallId: 'book-1',
            tool: 'book_hotel',
            input: { city: 'Lisbon' },
            effect: { ...withoutRetry, retry: DEFAULT_RETRY_POLICY },
            confirmed: false,
            turnId: null,
          },
        },
      ]);
  });

  it("a call's declared kind overrides the registered one", () => {
    spec
      .given([started])
      .when({ type: 'StartToolCall', toolCallId: 'c1', tool: 'charge_card', input: {}, effect: { kind: 'none' } }, { toolEffect: () => chargeCard })
      .then([
        { type: 'ToolCallStarted', data: { toolCallId: 'c1', tool: 'charge_card', input: {}, effect: { kind: 'none' }, confirmed: false, turnId: null } },
      ]);
  });

  it('an irreversible call goes ahead once confirmed', () => {
    spec
      .given([started, userSaid('t1'), userSaid('t2')])
      .when({ type: 'StartToolCall', toolCallId: 'pay-1', tool: 'charge_card', input: { amount: 90 }, effect: chargeCard, confirmed: true, turnId: 't1' })
      .then([
        {
          type: 'ToolCallStarted',
          data: { toolCallId: 'pay-1', tool: 'charge_card', input: { amount: 90 }, effect: chargeCard, confirmed: true, turnId: 't1' },
        },
      ]);
  });

  it('a failed call may be started again: a second attempt', () => {
    const { state } = spec
      .given([started, callStarted('c1'), callFailed('c1')])
      .when({ type: 'StartToolCall', toolCallId: 'c1', tool: 'search', input: {} })
      .then([{ type: 'ToolCallStarted', data: { toolCallId: 'c1', tool: 'search', input: {}, effect: { kind: 'none' }, confirmed: false, turnId: null } }]);
    expect(state.path.toolCalls.c1).toMatchObject({ status: 'started', attempts: 2 });
  });
});

describe('decide: CompleteToolCall and FailToolCall', () => {
  it('a call in progress succeeds with its output', () => {
    spec
      .given([started, callStarted('c1')])
      .when({ type: 'CompleteToolCall', toolCallId: 'c1', output: { hotels: 3 } })
      .then([{ type: 'ToolCallSucceeded', data: { toolCallId: 'c1', output: { hotels: 3 } }, parentVersion: 2 }]);
  });

  it('an output that fills the compensation template is accepted', () => {
    spec
      .given(booked.slice(0, 2))
      .when({ type: 'CompleteToolCall', toolCallId: 'book-1', output: { bookingId: 'B1' } })
      .then([{ type: 'ToolCallSucceeded', data: { toolCallId: 'book-1', output: { bookingId: 'B1' } } }]);
  });

  it('a call in progress fails, not retryable unless said; its output is not checked against the template', () => {
    const given = spec.given(booked.slice(0, 2));
    given
      .when({ type: 'FailToolCall', toolCallId: 'book-1', error: 'sold out' })
      .then([{ type: 'ToolCallFailed', data: { toolCallId: 'book-1', error: 'sold out', retryable: false } }]);
    given
      .when({ type: 'FailToolCall', toolCallId: 'book-1', error: 'timeout', retryable: true })
      .then([{ type: 'ToolCallFailed', data: { toolCallId: 'book-1', error: 'timeout', retryable: true } }]);
  });
});

describe('decide: memory, context variables, tasks, interrupts, checkpoints', () => {
  it('WriteMemory, EraseMemory and SetContextVariable become their events', () => {
    spec
      .given([started])
      .when({ type: 'WriteMemory', key: 'city', value: 'Lisbon' })
      .then([{ type: 'MemoryWritten', data: { key: 'city', value: 'Lisbon' }, parentVersion: 1 }]);
    spec
      .given([started, memoryWritten('city', 'Lisbon')])
      .when({ type: 'EraseMemory', key: 'city' })
      .then([{ type: 'MemoryErased', data: { key: 'city' }, parentVersion: 2 }]);
    spec
      .given([started])
      .when({ type: 'SetContextVariable', name: 'locale', value: 'pt-PT' })
      .then([{ type: 'ContextVariableSet', data: { name: 'locale', value: 'pt-PT' } }]);
  });

  it('PushTask gets an id unless it has one; PopTask pops the top task', () => {
    spec
      .given([started])
      .when({ type: 'PushTask', title: 'Book hotel' })
      .then([{ type: 'TaskPushed', data: { taskId: 'id-1', title: 'Book hotel', data: null } }]);
    spec
      .given([started])
      .when({ type: 'PushTask', taskId: 'k1', title: 'Pay', data: { amount: 90 } })
      .then([{ type: 'TaskPushed', data: { taskId: 'k1', title: 'Pay', data: { amount: 90 } } }]);
    spec
      .given([started, taskPushed('k1'), taskPushed('k2')])
      .when({ type: 'PopTask' })
      .then([{ type: 'TaskPopped', data: { taskId: 'k2' } }]);
  });

  it('an open turn can be interrupted, keeping the partial text', () => {
    spec
      .given([started, userSaid('t1')])
      .when({ type: 'InterruptTurn', turnId: 't1', partialContent: 'The best hotel is' })
      .then([{ type: 'TurnInterrupted', data: { turnId: 't1', partialContent: 'The best hotel is' }, parentVersion: 2 }]);
  });

  it('a checkpoint labels the head; it is not a timeline node (no parent)', () => {
    spec
      .given([started, userSaid('t1'), memoryWritten('k', 1)])
      .when({ type: 'CreateCheckpoint', label: 'before-booking' })
      .then([{ type: 'CheckpointCreated', data: { label: 'before-booking', version: 3 }, parentVersion: null }]);
  });
});

describe('decide: MoveHead', () => {
  const plain = [started, userSaid('t1'), memoryWritten('city', 'Lisbon')];

  it('undo goes back one step and completes at once when nothing needs compensating', () => {
    const { state, decision } = spec
      .given(plain)
      .when({ type: 'MoveHead', kind: 'undo' })
      .then([
        {
          type: 'RollbackRequested',
          data: { rollbackId: ROLLBACK_ID, kind: 'undo', fromVersion: 3, toVersion: 2, plan: [], acknowledgeIrreversible: false },
          parentVersion: null,
        },
        { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 2 }, parentVersion: null },
      ]);
    expect(decision.plan?.commonAncestor).toBe(2);
    expect(state).toMatchObject({ head: 2, redoStack: [3], activeRollbackId: null, path: { memory: {} } });
  });

  it('undo treats a tool call and its result as one step, and stops at the first step', () => {
    spec
      .given([started, userSaid('t1'), callStarted('c1'), callSucceeded('c1')])
      .when({ type: 'MoveHead', kind: 'undo' })
      .then([
        { type: 'RollbackRequested', data: { rollbackId: ROLLBACK_ID, kind: 'undo', fromVersion: 4, toVersion: 2, plan: [], acknowledgeIrreversible: false } },
        { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 2 } },
      ]);
    spec
      .given(plain)
      .when({ type: 'MoveHead', kind: 'undo', steps: 5 })
      .then([
        { type: 'RollbackRequested', data: { rollbackId: ROLLBACK_ID, kind: 'undo', fromVersion: 3, toVersion: 1, plan: [], acknowledgeIrreversible: false } },
        { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 1 } },
      ]);
  });

  it('a rollback goes to a version or to a checkpoint', () => {
    const expected = (toVersion: number, fromVersion: number): ExpectedEvent[] => [
      { type: 'RollbackRequested', data: { rollbackId: ROLLBACK_ID, kind: 'rollback', fromVersion, toVersion, plan: [], acknowledgeIrreversible: false } },
      { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion } },
    ];
    spec.given(plain).when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 }).then(expected(1, 3));
    spec
      .given([started, userSaid('t1'), checkpointCreated('cp', 2), memoryWritten('k', 1)])
      .when({ type: 'MoveHead', kind: 'rollback', toCheckpoint: 'cp' })
      .then(expected(2, 4));
  });

  const undone = [...plain, rollbackRequested({ rollbackId: 's~r0', kind: 'undo', fromVersion: 3, toVersion: 2 }), rollbackCompleted('s~r0', 2)];

  it('redo returns to the head the last backward move left', () => {
    const { state } = spec
      .given(undone)
      .when({ type: 'MoveHead', kind: 'redo' })
      .then([
        { type: 'RollbackRequested', data: { rollbackId: ROLLBACK_ID, kind: 'redo', fromVersion: 2, toVersion: 3, plan: [], acknowledgeIrreversible: false } },
        { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 3 } },
      ]);
    expect(state).toMatchObject({ head: 3, redoStack: [], path: { memory: { city: 'Lisbon' } } });
  });

  it('a new step after an undo starts a branch; moving to the other branch is a jump', () => {
    const branched = [...undone, memoryWritten('city', 'Porto')];
    expect(recordHistory(branched).events[5]!.parentVersion).toBe(2);
    const { state } = spec
      .given(branched)
      .when({ type: 'MoveHead', kind: 'rollback', toVersion: 3 })
      .then([
        { type: 'RollbackRequested', data: { rollbackId: ROLLBACK_ID, kind: 'jump', fromVersion: 6, toVersion: 3, plan: [], acknowledgeIrreversible: false } },
        { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 3 } },
      ]);
    expect(state.path.memory).toEqual({ city: 'Lisbon' });
  });

  it('rolling back past an irreversible effect, acknowledged, records it as skipped by whoever asked', () => {
    const payment = { toolCallId: 'pay-1', tool: 'charge_card', startedVersion: 2, effect: chargeCard };
    spec
      .given([started, callStarted('pay-1', chargeCard, { tool: 'charge_card' }), callSucceeded('pay-1')])
      .when({ type: 'MoveHead', kind: 'rollback', toVersion: 1, acknowledgeIrreversible: true }, { actor: 'alice' })
      .then([
        {
          type: 'RollbackRequested',
          data: {
            rollbackId: ROLLBACK_ID,
            kind: 'rollback',
            fromVersion: 3,
            toVersion: 1,
            plan: [planned(payment, 'succeeded')],
            acknowledgeIrreversible: true,
          },
        },
        {
          type: 'CompensationSkipped',
          data: { rollbackId: ROLLBACK_ID, toolCallId: 'pay-1', startedVersion: 2, reason: SKIPPED_IRREVERSIBLE, acknowledgedBy: 'alice' },
        },
        { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 1 } },
      ]);
  });

  it('a failed call had no effect: it is skipped without compensation or acknowledgement', () => {
    spec
      .given([...booked.slice(0, 2), callFailed('book-1')])
      .when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 })
      .then([
        {
          type: 'RollbackRequested',
          data: {
            rollbackId: ROLLBACK_ID,
            kind: 'rollback',
            fromVersion: 3,
            toVersion: 1,
            plan: [planned(bookingEffect, 'failed')],
            acknowledgeIrreversible: false,
          },
        },
        {
          type: 'CompensationSkipped',
          data: { rollbackId: ROLLBACK_ID, toolCallId: 'book-1', startedVersion: 2, reason: SKIPPED_FAILED, acknowledgedBy: null },
        },
        { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 1 } },
      ]);
    spec
      .given([started, callStarted('pay-1', chargeCard), callFailed('pay-1')])
      .when({ type: 'MoveHead', kind: 'undo' })
      .then([
        {
          type: 'RollbackRequested',
          data: {
            rollbackId: ROLLBACK_ID,
            kind: 'undo',
            fromVersion: 3,
            toVersion: 1,
            plan: [planned({ toolCallId: 'pay-1', tool: 'search', startedVersion: 2, effect: chargeCard }, 'failed')],
            acknowledgeIrreversible: false,
          },
        },
        {
          type: 'CompensationSkipped',
          data: { rollbackId: ROLLBACK_ID, toolCallId: 'pay-1', startedVersion: 2, reason: SKIPPED_FAILED, acknowledgedBy: null },
        },
        { type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 1 } },
      ]);
  });

  it('with a saga to compensate, rolling back past a booking requests the rollback and leaves it in progress', () => {
    const { decision, state } = spec
      .given(booked)
      .when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 }, { compensationEnabled: true })
      .then([rollbackInProgress[3]!]);
    expect(decision.plan?.toCompensate.map((e) => e.toolCallId)).toEqual(['book-1']);
    expect(state).toMatchObject({ head: 3, status: 'rolling_back', activeRollbackId: ROLLBACK_ID, effectOutcomes: { 2: { status: 'pending' } } });
  });

  it('a call that never finished is compensated too (it may have taken effect) when its compensation needs only its input; calls without effect are left out', () => {
    const byInput: EffectDescriptor = { ...cancelBooking, compensation: { channel: 'inline', target: 'cancel_booking', payload: { city: '{{input.city}}' } } };
    spec
      .given([started, callStarted('c0'), callSucceeded('c0'), callStarted('book-1', byInput, { tool: 'book_hotel', input: { city: 'Lisbon' } })])
      .when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 }, { compensationEnabled: true })
      .then([
        {
          type: 'RollbackRequested',
          data: {
            rollbackId: ROLLBACK_ID,
            kind: 'rollback',
            fromVersion: 4,
            toVersion: 1,
            plan: [planned({ toolCallId: 'book-1', tool: 'book_hotel', startedVersion: 4, effect: byInput }, 'started')],
            acknowledgeIrreversible: false,
          },
        },
      ]);
  });

  it('a call that never finished whose compensation needs its output is planned for an operator, with the reason (nothing can be sent)', () => {
    spec
      .given([started, callStarted('c0'), callSucceeded('c0'), callStarted('book-1', cancelBooking, { tool: 'book_hotel' })])
      .when({ type: 'MoveHead', kind: 'rollback', toVersion: 1 }, { compensationEnabled: true })
      .then([
        {
          type: 'RollbackRequested',
          data: {
            rollbackId: ROLLBACK_ID,
            kind: 'rollback',
            fromVersion: 4,
            toVersion: 1,
            plan: [
              {
                ...planned({ ...bookingEffect, startedVersion: 4 }, 'started'),
                reason: needsOperatorReason({ toolCallId: 'book-1', status: 'started' }, ['output.bookingId']),
              },
            ],
            acknowledgeIrreversible: false,
          },
        },
      ]);
  });

  it('a move needs ctx.pathAt: without it decide fails as a programming error, not a refusal', () => {
    const { state } = recordHistory(plain);
    const move = () => decide(state, { type: 'MoveHead', kind: 'undo' }, { newId: () => 'x', actor: 'tester' });
    expect(move).toThrow(/needs ctx.pathAt/);
    expect(move).not.toThrow(DomainError);
  });
});

describe('decide: rollback commands (the only writes while a rollback runs)', () => {
  const ids = { rollbackId: ROLLBACK_ID, toolCallId: 'book-1', startedVersion: 2 };

  it('RecordCompensationOutcome records an applied compensation, a failed attempt, or a final failure', () => {
    const given = spec.given(rollbackInProgress);
    given
      .when({
        type: 'RecordCompensationOutcome',
        rollbackId: ROLLBACK_ID,
        startedVersion: 2,
        outcome: { status: 'applied', attempts: 1, response: { ok: true } },
      })
      .then([compensation.applied]);
    given
      .when({
        type: 'RecordCompensationOutcome',
        rollbackId: ROLLBACK_ID,
        startedVersion: 2,
        outcome: { status: 'attempt_failed', attempt: 1, error: 'timeout', retryInMs: 200 },
      })
      .then([{ type: 'CompensationAttemptFailed', data: { ...ids, attempt: 1, error: 'timeout', retryInMs: 200 }, parentVersion: null }]);
    const { state } = given
      .when({ type: 'RecordCompensationOutcome', rollbackId: ROLLBACK_ID, startedVersion: 2, outcome: { status: 'failed', attempts: 5, error: 'HTTP 500' } })
      .then([compensation.failed]);
    expect(state.status).toBe('needs_attention');
  });

  it('CompleteRollback, once every effect is compensated, makes the target current', () => {
    const { state } = spec
      .given([...rollbackInProgress, compensation.applied])
      .when({ type: 'CompleteRollback', rollbackId: ROLLBACK_ID })
      .then([{ type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 1 } }]);
    expect(state).toMatchObject({ head: 1, status: 'active', activeRollbackId: null, redoStack: [3], path: { toolCalls: {} } });
  });

  it('an operator retries a failed compensation: it is pending again and the rollback back at work', () => {
    const { state } = spec
      .given(rollbackNeedsAttention)
      .when({ type: 'RetryCompensation', rollbackId: ROLLBACK_ID, toolCallId: 'book-1' }, { actor: 'operator' })
      .then([{ type: 'CompensationRetryRequested', data: { ...ids, requestedBy: 'operator' } }]);
    expect(state.rollbacks[ROLLBACK_ID]!.status).toBe('in_progress');
    expect(state.effectOutcomes[2]!.status).toBe('pending');
  });

  it('an operator resolves a failed compensation by hand; then the rollback can complete', () => {
    const resolved = spec
      .given(rollbackNeedsAttention)
      .when({ type: 'ResolveCompensation', rollbackId: ROLLBACK_ID, toolCallId: 'book-1', note: 'cancelled by phone' }, { actor: 'operator' })
      .then([{ type: 'CompensationResolved', data: { ...ids, resolvedBy: 'operator', note: 'cancelled by phone' } }]);
    expect(resolved.state.effectOutcomes[2]!.status).toBe('resolved');
    spec
      .given([...rollbackNeedsAttention, resolved.recorded[0]!])
      .when({ type: 'CompleteRollback', rollbackId: ROLLBACK_ID })
      .then([{ type: 'RollbackCompleted', data: { rollbackId: ROLLBACK_ID, toVersion: 1 } }]);
  });

  it('after the rollback completes, steps are accepted again, on a new branch from the target', () => {
    spec
      .given(rolledBackPastBooking)
      .when({ type: 'WriteMemory', key: 'city', value: 'Porto' })
      .then([{ type: 'MemoryWritten', data: { key: 'city', value: 'Porto' }, parentVersion: 1 }]);
  });
});

describe('decide: effects declared on a call', () => {
  it('a compensable call whose input fills its template is accepted with the default retry policy', () => {
    const effect: EffectDescriptor = {
      kind: 'compensable',
      compensation: { channel: 'http', target: 'https://mail.example/corrections', payload: { to: '{{input.to}}', about: '{{output.messageId}}' } },
    };
    spec
      .given([started])
      .when({ type: 'StartToolCall', toolCallId: 'mail-1', tool: 'send_email', input: { to: 'a@example.com' }, effect })
      .then([
        {
          type: 'ToolCallStarted',
          data: {
            toolCallId: 'mail-1',
            tool: 'send_email',
            input: { to: 'a@example.com' },
            effect: { ...effect, retry: DEFAULT_RETRY_POLICY },
            confirmed: false,
            turnId: null,
          },
        },
      ]);
  });
});
