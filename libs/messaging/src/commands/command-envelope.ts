import { IsInt, IsObject, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import {
  CreateCheckpointDto,
  FailToolCallDto,
  InterruptTurnDto,
  PushTaskDto,
  RecordMessageDto,
  RecordStepsDto,
  RecordThoughtDto,
  RedoDto,
  RollbackDto,
  StartSessionDto,
  StartToolCallDto,
  SucceedToolCallDto,
  toCommand,
  UndoDto,
  ValueDto,
} from '@rewind/contracts';
import type { JsonObject, JsonValue, MoveHead, SessionCommand } from '@rewind/domain';
import { ID_PATTERN } from '@rewind/engine';

const ID_MESSAGE = (field: string) => ({ message: `${field} must be 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone)` });
const NAME_PATTERN = /^[^\u0000-\u001f]{1,256}$/;

/**
 * A command on `rewind.commands` (message key = sessionId). The payload is the HTTP body
 * of the same command, plus the path parameters HTTP takes from the URL (memory key,
 * context variable name, toolCallId of succeed/fail, turnId of interrupt).
 */
export class CommandEnvelopeDto {
  /** Your id for this command: it is applied once however often it is delivered. */
  @Matches(ID_PATTERN, ID_MESSAGE('commandId'))
  commandId!: string;

  @IsString()
  type!: string;

  @Matches(ID_PATTERN, ID_MESSAGE('tenantId'))
  tenantId!: string;

  @Matches(ID_PATTERN, ID_MESSAGE('sessionId'))
  sessionId!: string;

  /** Like HTTP If-Match: the stream version you believe is current (0 = the session must not exist yet). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  expectedVersion?: number;

  @IsOptional()
  @IsObject()
  payload?: JsonObject;
}

export interface CommandEnvelope {
  commandId: string;
  type: CommandType;
  tenantId: string;
  sessionId: string;
  expectedVersion?: number;
  payload?: Record<string, JsonValue>;
}

// ---- payloads: the HTTP DTOs, plus the path parameters ------------------------------

export class SucceedToolCallPayload extends SucceedToolCallDto {
  @Matches(ID_PATTERN, ID_MESSAGE('toolCallId'))
  toolCallId!: string;
}

export class FailToolCallPayload extends FailToolCallDto {
  @Matches(ID_PATTERN, ID_MESSAGE('toolCallId'))
  toolCallId!: string;
}

export class WriteMemoryPayload extends ValueDto {
  @IsString()
  @Matches(NAME_PATTERN, { message: 'key must be 1-256 printable characters' })
  key!: string;
}

export class EraseMemoryPayload {
  @IsString()
  @Matches(NAME_PATTERN, { message: 'key must be 1-256 printable characters' })
  key!: string;
}

export class SetContextVariablePayload extends ValueDto {
  @IsString()
  @Matches(NAME_PATTERN, { message: 'name must be 1-256 printable characters' })
  name!: string;
}

export class InterruptTurnPayload extends InterruptTurnDto {
  @Matches(ID_PATTERN, ID_MESSAGE('turnId'))
  turnId!: string;
}

/** PopTask takes nothing: any field is refused. */
export class EmptyPayload {}

/** What a decoded command asks the session service to do. */
export type CommandAction =
  | { kind: 'start'; input: { sessionId: string; title?: string; metadata?: JsonObject } }
  | { kind: 'execute'; command: SessionCommand }
  /** Several steps in one atomic write (POST /v1/sessions/:id/steps). */
  | { kind: 'steps'; commands: SessionCommand[] }
  /** A head move with `dryRun: true`: only its plan, nothing written. */
  | { kind: 'plan'; command: MoveHead };

interface CommandSpec<P extends object> {
  payload: new () => P;
  action: (payload: P, envelope: { sessionId: string }) => CommandAction;
}

const spec = <P extends object>(payload: new () => P, action: (payload: P, envelope: { sessionId: string }) => CommandAction): CommandSpec<P> => ({
  payload,
  action,
});
const execute = (command: SessionCommand): CommandAction => ({ kind: 'execute', command });
const move = (command: MoveHead, dryRun: boolean | undefined): CommandAction => (dryRun ? { kind: 'plan', command } : { kind: 'execute', command });

/** Every command type Kafka accepts, its payload class and the shared DTO → command mapping. */
export const COMMAND_SPECS = {
  StartSession: spec(StartSessionDto, (p, e) => ({
    kind: 'start',
    input: { sessionId: e.sessionId, ...(p.title !== undefined ? { title: p.title } : {}), ...(p.metadata !== undefined ? { metadata: p.metadata } : {}) },
  })),
  RecordMessage: spec(RecordMessageDto, (p) => execute(toCommand.recordMessage(p))),
  StartToolCall: spec(StartToolCallDto, (p) => execute(toCommand.startToolCall(p))),
  SucceedToolCall: spec(SucceedToolCallPayload, (p) => execute(toCommand.succeedToolCall(p.toolCallId, p))),
  FailToolCall: spec(FailToolCallPayload, (p) => execute(toCommand.failToolCall(p.toolCallId, p))),
  WriteMemory: spec(WriteMemoryPayload, (p) => execute(toCommand.writeMemory(p.key, p))),
  EraseMemory: spec(EraseMemoryPayload, (p) => execute(toCommand.eraseMemory(p.key))),
  SetContextVariable: spec(SetContextVariablePayload, (p) => execute(toCommand.setContextVariable(p.name, p))),
  PushTask: spec(PushTaskDto, (p) => execute(toCommand.pushTask(p))),
  PopTask: spec(EmptyPayload, () => execute(toCommand.popTask())),
  InterruptTurn: spec(InterruptTurnPayload, (p) => execute(toCommand.interruptTurn(p.turnId, p))),
  RecordThought: spec(RecordThoughtDto, (p) => execute(toCommand.recordThought(p))),
  CreateCheckpoint: spec(CreateCheckpointDto, (p) => execute(toCommand.createCheckpoint(p))),
  RecordSteps: spec(RecordStepsDto, (p) => ({ kind: 'steps', commands: toCommand.steps(p) })),
  Rollback: spec(RollbackDto, (p) => move(toCommand.rollback(p), p.dryRun)),
  Undo: spec(UndoDto, (p) => move(toCommand.undo(p), p.dryRun)),
  Redo: spec(RedoDto, (p) => move(toCommand.redo(p), p.dryRun)),
} satisfies Record<string, CommandSpec<any>>;

export type CommandType = keyof typeof COMMAND_SPECS;
export const COMMAND_TYPES = Object.keys(COMMAND_SPECS) as CommandType[];
