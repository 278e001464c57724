import type { EffectDescriptor } from './effects';
import type { HeadMoveKind } from './events';
import type { JsonObject, JsonValue } from './json';
import type { MessageRole } from './state';

export interface StartSession {
  type: 'StartSession';
  sessionId: string;
  title?: string | null;
  metadata?: JsonObject;
}
export interface RecordMessage {
  type: 'RecordMessage';
  role: MessageRole;
  content: string;
  turnId?: string;
}
export interface StartToolCall {
  type: 'StartToolCall';
  toolCallId: string;
  tool: string;
  input: JsonValue;
  /** Completes or overrides the tool's registered effect. */
  effect?: Partial<EffectDescriptor>;
  confirmed?: boolean;
  turnId?: string;
}
/** A tool call put to a person instead of started: it waits for ApproveToolCall or RejectToolCall. */
export interface ProposeToolCall {
  type: 'ProposeToolCall';
  toolCallId: string;
  tool: string;
  input: JsonValue;
  effect?: Partial<EffectDescriptor>;
  turnId?: string;
}
export interface ApproveToolCall {
  type: 'ApproveToolCall';
  toolCallId: string;
  note?: string;
}
export interface RejectToolCall {
  type: 'RejectToolCall';
  toolCallId: string;
  reason: string;
}
export interface CompleteToolCall {
  type: 'CompleteToolCall';
  toolCallId: string;
  output: JsonValue;
}
export interface FailToolCall {
  type: 'FailToolCall';
  toolCallId: string;
  error: string;
  retryable?: boolean;
}
export interface WriteMemory {
  type: 'WriteMemory';
  key: string;
  value: JsonValue;
}
export interface EraseMemory {
  type: 'EraseMemory';
  key: string;
}
export interface SetContextVariable {
  type: 'SetContextVariable';
  name: string;
  value: JsonValue;
}
export interface PushTask {
  type: 'PushTask';
  taskId?: string;
  title: string;
  data?: JsonValue;
}
export interface PopTask {
  type: 'PopTask';
}
export interface InterruptTurn {
  type: 'InterruptTurn';
  turnId: string;
  partialContent: string;
}
/**
 * The agent's reasoning (seed 002 §4.3, AgentThoughtProcess): kept for people debugging the
 * agent, never sent back to the LLM unless a caller asks for it (see buildContextWindow).
 */
export interface RecordThought {
  type: 'RecordThought';
  content: string;
  /** The reasoning as separate steps, when the agent gives them. */
  steps?: string[];
  turnId?: string;
}
export interface CreateCheckpoint {
  type: 'CreateCheckpoint';
  label: string;
}
/**
 * Records that data keys of the session were destroyed (crypto-shredding): issued by the
 * service after destroying them, never accepted from a client.
 */
export interface RecordShredding {
  type: 'RecordShredding';
  keyIds: string[];
  reason: string;
}
/** Rollback, undo, redo or a jump to another branch: all move the head. */
export interface MoveHead {
  type: 'MoveHead';
  kind: Exclude<HeadMoveKind, 'jump'>;
  toVersion?: number;
  toCheckpoint?: string;
  steps?: number;
  acknowledgeIrreversible?: boolean;
  /**
   * Fork from the past (seed 002 §4.2), rollback only: steps recorded as soon as the head lands
   * on the target (in the same write, or in the write that completes the rollback), starting a
   * new branch there. Only steps decided on the path alone (see FORK_STEP_TYPES).
   */
  then?: StepCommand[];
  /** A name for the branch the fork starts (kept on its first step). */
  branchName?: string;
}

/** The saga's record of one compensation attempt. */
export interface RecordCompensationOutcome {
  type: 'RecordCompensationOutcome';
  rollbackId: string;
  startedVersion: number;
  outcome:
    | { status: 'applied'; attempts: number; response: JsonValue }
    | { status: 'attempt_failed'; attempt: number; error: string; retryInMs: number }
    | { status: 'failed'; attempts: number; error: string };
}
export interface CompleteRollback {
  type: 'CompleteRollback';
  rollbackId: string;
}
export interface RetryCompensation {
  type: 'RetryCompensation';
  rollbackId: string;
  toolCallId: string;
}
export interface ResolveCompensation {
  type: 'ResolveCompensation';
  rollbackId: string;
  toolCallId: string;
  note: string;
}

/** Commands that act on a rollback in progress (the only writes allowed while one runs). */
export type RollbackCommand = RecordCompensationOutcome | CompleteRollback | RetryCompensation | ResolveCompensation;

export type SessionCommand =
  | StartSession
  | RecordMessage
  | StartToolCall
  | ProposeToolCall
  | ApproveToolCall
  | RejectToolCall
  | CompleteToolCall
  | FailToolCall
  | WriteMemory
  | EraseMemory
  | SetContextVariable
  | PushTask
  | PopTask
  | InterruptTurn
  | RecordThought
  | CreateCheckpoint
  | MoveHead
  | RecordShredding
  | NameBranch
  | RollbackCommand;

export type SessionCommandType = SessionCommand['type'];

/**
 * What an agent records as it works: the commands that may be sent several at a time
 * (`POST /v1/sessions/:id/steps`). Head moves, rollbacks and the session's start are not:
 * each of those stands alone.
 */
export type StepCommand =
  | RecordMessage
  | StartToolCall
  | ProposeToolCall
  | ApproveToolCall
  | RejectToolCall
  | CompleteToolCall
  | FailToolCall
  | WriteMemory
  | EraseMemory
  | SetContextVariable
  | PushTask
  | PopTask
  | InterruptTurn
  | RecordThought
  | CreateCheckpoint;

export const STEP_COMMAND_TYPES: readonly StepCommand['type'][] = [
  'RecordMessage',
  'StartToolCall',
  'ProposeToolCall',
  'ApproveToolCall',
  'RejectToolCall',
  'CompleteToolCall',
  'FailToolCall',
  'WriteMemory',
  'EraseMemory',
  'SetContextVariable',
  'PushTask',
  'PopTask',
  'InterruptTurn',
  'RecordThought',
  'CreateCheckpoint',
];

/** The steps a fork may start with: decided on the target's path alone, so deciding them later decides the same. */
export const FORK_STEP_TYPES: readonly StepCommand['type'][] = [
  'RecordMessage',
  'WriteMemory',
  'EraseMemory',
  'SetContextVariable',
  'PushTask',
  'PopTask',
  'RecordThought',
];

/** Names a branch by one of its steps (the first of a fork, usually). */
export interface NameBranch {
  type: 'NameBranch';
  version: number;
  name: string;
}

export function isStepCommand(command: SessionCommand): command is StepCommand {
  return (STEP_COMMAND_TYPES as readonly string[]).includes(command.type);
}
