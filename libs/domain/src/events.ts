import type { EffectDescriptor } from './effects';
import type { JsonObject, JsonValue } from './json';

/** Bumped whenever `evolve` changes meaning: snapshots written by another version are ignored. */
export const REDUCER_VERSION = 2;
/** Schema version written into each new event's metadata. */
export const EVENT_SCHEMA_VERSION = 1;

export interface SessionStarted {
  type: 'SessionStarted';
  data: { sessionId: string; title: string | null; metadata: JsonObject };
}
export interface UserMessageReceived {
  type: 'UserMessageReceived';
  data: { turnId: string; messageId: string; content: string };
}
export interface AgentMessageProduced {
  type: 'AgentMessageProduced';
  data: { turnId: string; messageId: string; content: string };
}
export interface ToolCallStarted {
  type: 'ToolCallStarted';
  data: {
    toolCallId: string;
    tool: string;
    input: JsonValue;
    effect: EffectDescriptor;
    confirmed: boolean;
    turnId: string | null;
  };
}
/** A tool call waits for a person's decision (it has not run, and nothing will compensate it). */
export interface ToolCallProposed {
  type: 'ToolCallProposed';
  data: { toolCallId: string; tool: string; input: JsonValue; effect: EffectDescriptor; turnId: string | null };
}
export interface ToolCallApproved {
  type: 'ToolCallApproved';
  data: { toolCallId: string; approvedBy: string; note: string | null };
}
export interface ToolCallRejected {
  type: 'ToolCallRejected';
  data: { toolCallId: string; rejectedBy: string; reason: string };
}
export interface ToolCallSucceeded {
  type: 'ToolCallSucceeded';
  data: { toolCallId: string; output: JsonValue };
}
export interface ToolCallFailed {
  type: 'ToolCallFailed';
  data: { toolCallId: string; error: string; retryable: boolean };
}
export interface MemoryWritten {
  type: 'MemoryWritten';
  data: { key: string; value: JsonValue };
}
export interface MemoryErased {
  type: 'MemoryErased';
  data: { key: string };
}
export interface ContextVariableSet {
  type: 'ContextVariableSet';
  data: { name: string; value: JsonValue };
}
export interface TaskPushed {
  type: 'TaskPushed';
  data: { taskId: string; title: string; data: JsonValue };
}
export interface TaskPopped {
  type: 'TaskPopped';
  data: { taskId: string };
}
export interface TurnInterrupted {
  type: 'TurnInterrupted';
  data: { turnId: string; partialContent: string };
}
/** The agent's reasoning at this point: a step of the timeline, never part of the LLM context by default. */
export interface AgentThoughtRecorded {
  type: 'AgentThoughtRecorded';
  data: { thoughtId: string; turnId: string | null; content: string; steps: string[] };
}
export interface CheckpointCreated {
  type: 'CheckpointCreated';
  data: { label: string; version: number };
}

/** Data keys of the session were destroyed: its encrypted fields are unreadable from here on (state unchanged). */
export interface DataShredded {
  type: 'DataShredded';
  data: { keyIds: string[]; reason: string };
}

export const HEAD_MOVE_KINDS = ['rollback', 'undo', 'redo', 'jump'] as const;
export type HeadMoveKind = (typeof HEAD_MOVE_KINDS)[number];

/** One external effect on the abandoned path, and what the rollback will do about it. */
export interface PlannedEffect {
  toolCallId: string;
  tool: string;
  startedVersion: number;
  effect: EffectDescriptor;
  callStatus: 'started' | 'succeeded' | 'failed';
  action: 'compensate' | 'skip';
  reason: string | null;
}

export interface RollbackRequested {
  type: 'RollbackRequested';
  data: {
    rollbackId: string;
    kind: HeadMoveKind;
    fromVersion: number;
    toVersion: number;
    plan: PlannedEffect[];
    acknowledgeIrreversible: boolean;
    /** A fork: the step commands to record once the head lands (JSON of StepCommand), and its branch's name. */
    then?: JsonObject[];
    branchName?: string | null;
  };
}
/** A branch got a name, kept on one of its steps (a record about the timeline, not a step). */
export interface BranchNamed {
  type: 'BranchNamed';
  data: { version: number; name: string };
}
export interface CompensationApplied {
  type: 'CompensationApplied';
  data: { rollbackId: string; toolCallId: string; startedVersion: number; attempts: number; response: JsonValue };
}
export interface CompensationFailed {
  type: 'CompensationFailed';
  data: { rollbackId: string; toolCallId: string; startedVersion: number; attempts: number; error: string };
}
export interface CompensationSkipped {
  type: 'CompensationSkipped';
  data: { rollbackId: string; toolCallId: string; startedVersion: number; reason: string; acknowledgedBy: string | null };
}
/** One attempt failed and will be retried after `retryInMs`. */
export interface CompensationAttemptFailed {
  type: 'CompensationAttemptFailed';
  data: { rollbackId: string; toolCallId: string; startedVersion: number; attempt: number; error: string; retryInMs: number };
}
/** An operator asked for a failed compensation to be tried again. */
export interface CompensationRetryRequested {
  type: 'CompensationRetryRequested';
  data: { rollbackId: string; toolCallId: string; startedVersion: number; requestedBy: string };
}
/** An operator undid the effect by hand and says so. */
export interface CompensationResolved {
  type: 'CompensationResolved';
  data: { rollbackId: string; toolCallId: string; startedVersion: number; resolvedBy: string; note: string };
}
export interface RollbackCompleted {
  type: 'RollbackCompleted';
  data: { rollbackId: string; toVersion: number };
}

export type SessionEvent =
  | SessionStarted
  | UserMessageReceived
  | AgentMessageProduced
  | ToolCallStarted
  | ToolCallProposed
  | ToolCallApproved
  | ToolCallRejected
  | ToolCallSucceeded
  | ToolCallFailed
  | MemoryWritten
  | MemoryErased
  | ContextVariableSet
  | TaskPushed
  | TaskPopped
  | TurnInterrupted
  | AgentThoughtRecorded
  | CheckpointCreated
  | DataShredded
  | BranchNamed
  | RollbackRequested
  | CompensationApplied
  | CompensationFailed
  | CompensationSkipped
  | CompensationAttemptFailed
  | CompensationRetryRequested
  | CompensationResolved
  | RollbackCompleted;

export type SessionEventType = SessionEvent['type'];

/**
 * Step events change what the agent knows and are nodes of the timeline DAG (they have
 * a parent). The others record what happened *to* the session (checkpoints, head moves,
 * compensations) and are not nodes.
 */
const STEP_EVENT_TYPES: ReadonlySet<SessionEventType> = new Set<SessionEventType>([
  'SessionStarted',
  'UserMessageReceived',
  'AgentMessageProduced',
  'ToolCallStarted',
  'ToolCallProposed',
  'ToolCallApproved',
  'ToolCallRejected',
  'ToolCallSucceeded',
  'ToolCallFailed',
  'MemoryWritten',
  'MemoryErased',
  'ContextVariableSet',
  'TaskPushed',
  'TaskPopped',
  'TurnInterrupted',
  'AgentThoughtRecorded',
]);

export function isStepEvent(type: string): boolean {
  return STEP_EVENT_TYPES.has(type as SessionEventType);
}

export interface EventMetadata {
  tenantId: string;
  sessionId: string;
  commandId: string;
  causationId: string | null;
  correlationId: string;
  actor: string;
  occurredAt: string;
  schemaVersion: number;
  /** W3C traceparent of the write's span when its trace was sampled: the relay's publish continues that trace. */
  traceparent?: string;
}

/** An event as committed to a session stream. */
export type RecordedSessionEvent = SessionEvent & {
  eventId: string;
  streamVersion: number;
  globalPosition: number;
  /** The timeline predecessor for step events; null for the root and for non-step events. */
  parentVersion: number | null;
  metadata: EventMetadata;
};
