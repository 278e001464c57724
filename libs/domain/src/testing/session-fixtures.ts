import { DEFAULT_RETRY_POLICY, NO_EFFECT, type EffectDescriptor } from '../effects';
import type { HeadMoveKind, PlannedEffect } from '../events';
import type { JsonValue } from '../json';
import type { GivenEvent } from './decider-specification';

/**
 * Events to write `given` histories with, and a few histories the domain specs share. Ids
 * are fixed: `m-<turn>` for a user message, `a-<turn>` for an agent answer.
 */

export const started: GivenEvent = { type: 'SessionStarted', data: { sessionId: 's', title: null, metadata: {} } };

export const userSaid = (turnId: string, content = 'hello'): GivenEvent => ({
  type: 'UserMessageReceived',
  data: { turnId, messageId: `m-${turnId}`, content },
});
export const agentSaid = (turnId: string, content = 'answer'): GivenEvent => ({
  type: 'AgentMessageProduced',
  data: { turnId, messageId: `a-${turnId}`, content },
});
export const memoryWritten = (key: string, value: JsonValue): GivenEvent => ({ type: 'MemoryWritten', data: { key, value } });
export const taskPushed = (taskId: string, title = taskId): GivenEvent => ({ type: 'TaskPushed', data: { taskId, title, data: null } });
export const checkpointCreated = (label: string, version: number): GivenEvent => ({ type: 'CheckpointCreated', data: { label, version } });

/** A booking: undone by cancelling `{{output.bookingId}}`. */
export const cancelBooking: EffectDescriptor = {
  kind: 'reversible',
  compensation: { channel: 'inline', target: 'cancel_booking', payload: { bookingId: '{{output.bookingId}}' } },
  retry: DEFAULT_RETRY_POLICY,
};
/** A payment: cannot be undone. */
export const chargeCard: EffectDescriptor = { kind: 'irreversible' };

export interface CallOptions {
  tool?: string;
  input?: JsonValue;
  confirmed?: boolean;
  turnId?: string | null;
}

/** A tool call starting; an irreversible one is confirmed unless said otherwise. */
export const callStarted = (toolCallId: string, effect: EffectDescriptor = NO_EFFECT, options: CallOptions = {}): GivenEvent => ({
  type: 'ToolCallStarted',
  data: {
    toolCallId,
    tool: options.tool ?? 'search',
    input: options.input ?? {},
    effect,
    confirmed: options.confirmed ?? effect.kind === 'irreversible',
    turnId: options.turnId ?? null,
  },
});
export const callSucceeded = (toolCallId: string, output: JsonValue = {}): GivenEvent => ({ type: 'ToolCallSucceeded', data: { toolCallId, output } });
export const callFailed = (toolCallId: string, error = 'boom', retryable = false): GivenEvent => ({
  type: 'ToolCallFailed',
  data: { toolCallId, error, retryable },
});

export const SKIPPED_FAILED = 'the call failed, so it had no effect to undo';
export const SKIPPED_IRREVERSIBLE = 'irreversible: it cannot be undone';

/** An effect as a head-move plan lists it (the reason is the one `planHeadMove` gives). */
export function planned(
  call: { toolCallId: string; tool: string; startedVersion: number; effect: EffectDescriptor },
  callStatus: PlannedEffect['callStatus'],
): PlannedEffect {
  const skip = callStatus === 'failed' ? SKIPPED_FAILED : call.effect.kind === 'irreversible' ? SKIPPED_IRREVERSIBLE : null;
  return { ...call, callStatus, action: skip ? 'skip' : 'compensate', reason: skip };
}

export const rollbackRequested = (data: {
  rollbackId: string;
  kind?: HeadMoveKind;
  fromVersion: number;
  toVersion: number;
  plan?: PlannedEffect[];
  acknowledgeIrreversible?: boolean;
}): GivenEvent => ({
  type: 'RollbackRequested',
  data: { kind: 'rollback', plan: [], acknowledgeIrreversible: false, ...data },
});
export const rollbackCompleted = (rollbackId: string, toVersion: number): GivenEvent => ({ type: 'RollbackCompleted', data: { rollbackId, toVersion } });

/** The rollback id `decide` gives the first head move of a `when` (session `s`, id `id-1`). */
export const ROLLBACK_ID = 's~id-1';

/** Hotel `B1` booked by `book-1` (started at 2, succeeded at 3). */
export const booked: readonly GivenEvent[] = [
  started,
  callStarted('book-1', cancelBooking, { tool: 'book_hotel', input: { city: 'Lisbon' } }),
  callSucceeded('book-1', { bookingId: 'B1' }),
];
export const bookingEffect = { toolCallId: 'book-1', tool: 'book_hotel', startedVersion: 2, effect: cancelBooking };

/** `booked`, then a rollback to version 1 that must cancel the booking: in progress at version 4. */
export const rollbackInProgress: readonly GivenEvent[] = [
  ...booked,
  rollbackRequested({ rollbackId: ROLLBACK_ID, fromVersion: 3, toVersion: 1, plan: [planned(bookingEffect, 'succeeded')] }),
];

export const compensation = {
  applied: { type: 'CompensationApplied', data: { rollbackId: ROLLBACK_ID, toolCallId: 'book-1', startedVersion: 2, attempts: 1, response: { ok: true } } },
  failed: { type: 'CompensationFailed', data: { rollbackId: ROLLBACK_ID, toolCallId: 'book-1', startedVersion: 2, attempts: 5, error: 'HTTP 500' } },
} satisfies Record<string, GivenEvent>;

/** The rollback's compensation failed for good: the rollback needs attention. */
export const rollbackNeedsAttention: readonly GivenEvent[] = [...rollbackInProgress, compensation.failed];

/** The booking was cancelled and the rollback completed (version 6): head 1, redo would return to 3. */
export const rolledBackPastBooking: readonly GivenEvent[] = [...rollbackInProgress, compensation.applied, rollbackCompleted(ROLLBACK_ID, 1)];
