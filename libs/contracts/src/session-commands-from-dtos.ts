import { invalid, type EffectDescriptor, type MoveHead, type SessionCommand, type StepCommand } from '@rewind/domain';
import type { ForkDto } from './dto/fork.dto';
import type { RedoDto, RollbackDto, UndoDto } from './dto/head-move.dto';
import type { EffectDto, RegisterToolDto } from './dto/step.dto';
import type { AnyStepDto, RecordStepsDto } from './dto/steps.dto';
import type {
  ApproveToolCallDto,
  CreateCheckpointDto,
  ProposeToolCallDto,
  RejectToolCallDto,
  FailToolCallDto,
  InterruptTurnDto,
  PushTaskDto,
  RecordMessageDto,
  RecordThoughtDto,
  StartToolCallDto,
  SucceedToolCallDto,
  ValueDto,
} from './dto/step.dto';

/**
 * The one mapping from validated DTOs to domain commands, shared by the HTTP controllers
 * and the Kafka command consumer (so both accept exactly the same input).
 */
export const toCommand = {
  recordMessage: (b: RecordMessageDto): SessionCommand => ({
    type: 'RecordMessage',
    role: b.role === 'assistant' ? 'agent' : b.role,
    content: b.content,
    ...(b.turnId ? { turnId: b.turnId } : {}),
  }),
  startToolCall: (b: StartToolCallDto): SessionCommand => ({
    type: 'StartToolCall',
    toolCallId: b.toolCallId,
    tool: b.tool,
    input: b.input ?? null,
    ...(b.effect ? { effect: effectOf(b.effect) } : {}),
    ...(b.confirmed !== undefined ? { confirmed: b.confirmed } : {}),
    ...(b.turnId ? { turnId: b.turnId } : {}),
  }),
  proposeToolCall: (b: ProposeToolCallDto): SessionCommand => ({
    type: 'ProposeToolCall',
    toolCallId: b.toolCallId,
    tool: b.tool,
    input: b.input ?? null,
    ...(b.effect ? { effect: effectOf(b.effect) } : {}),
    ...(b.turnId ? { turnId: b.turnId } : {}),
  }),
  approveToolCall: (toolCallId: string, b: ApproveToolCallDto | undefined): SessionCommand => ({
    type: 'ApproveToolCall',
    toolCallId,
    ...(b?.note != null ? { note: b.note } : {}),
  }),
  rejectToolCall: (toolCallId: string, b: RejectToolCallDto): SessionCommand => ({ type: 'RejectToolCall', toolCallId, reason: b.reason }),
  succeedToolCall: (toolCallId: string, b: SucceedToolCallDto): SessionCommand => ({ type: 'CompleteToolCall', toolCallId, output: b.output }),
  failToolCall: (toolCallId: string, b: FailToolCallDto): SessionCommand => ({
    type: 'FailToolCall',
    toolCallId,
    error: b.error,
    retryable: b.retryable ?? false,
  }),
  writeMemory: (key: string, b: ValueDto): SessionCommand => ({ type: 'WriteMemory', key, value: b.value }),
  eraseMemory: (key: string): SessionCommand => ({ type: 'EraseMemory', key }),
  setContextVariable: (name: string, b: ValueDto): SessionCommand => ({ type: 'SetContextVariable', name, value: b.value }),
  pushTask: (b: PushTaskDto): SessionCommand => ({
    type: 'PushTask',
    title: b.title,
    ...(b.taskId ? { taskId: b.taskId } : {}),
    ...(b.data !== undefined ? { data: b.data } : {}),
  }),
  popTask: (): SessionCommand => ({ type: 'PopTask' }),
  interruptTurn: (turnId: string, b: InterruptTurnDto): SessionCommand => ({ type: 'InterruptTurn', turnId, partialContent: b.partialContent }),
  recordThought: (b: RecordThoughtDto): SessionCommand => ({
    type: 'RecordThought',
    content: b.content,
    // IsOptional lets null through: null is "no steps", as absent.
    ...(b.steps != null ? { steps: [...b.steps] } : {}),
    ...(b.turnId ? { turnId: b.turnId } : {}),
  }),
  createCheckpoint: (b: CreateCheckpointDto): SessionCommand => ({ type: 'CreateCheckpoint', label: b.label }),
  rollback: (b: RollbackDto): MoveHead => {
    if ((b.toVersion === undefined) === (b.toCheckpoint === undefined)) {
      throw invalid('validation_failed', 'Give exactly one of toVersion and toCheckpoint.', [
        { field: 'toVersion', message: 'exactly one of toVersion, toCheckpoint is required' },
      ]);
    }
    return rollbackCommand(b);
  },
  undo: (b: UndoDto | undefined): MoveHead => ({
    type: 'MoveHead',
    kind: 'undo',
    steps: b?.steps ?? 1,
    acknowledgeIrreversible: b?.acknowledgeIrreversible ?? false,
  }),
  redo: (b: RedoDto | undefined): MoveHead => ({ type: 'MoveHead', kind: 'redo', acknowledgeIrreversible: b?.acknowledgeIrreversible ?? false }),
  /** A step of a batch means what the single-step route with the same body and path means. */
  step: (s: AnyStepDto): SessionCommand => {
    switch (s.kind) {
      case 'message':
        return toCommand.recordMessage(s);
      case 'tool-call':
        return toCommand.startToolCall(s);
      case 'tool-result':
        return toCommand.succeedToolCall(s.toolCallId, s);
      case 'tool-failure':
        return toCommand.failToolCall(s.toolCallId, s);
      case 'memory':
        return toCommand.writeMemory(s.key, s);
      case 'memory-erase':
        return toCommand.eraseMemory(s.key);
      case 'context-var':
        return toCommand.setContextVariable(s.name, s);
      case 'task-push':
        return toCommand.pushTask(s);
      case 'task-pop':
        return toCommand.popTask();
      case 'interrupt':
        return toCommand.interruptTurn(s.turnId, s);
      case 'thought':
        return toCommand.recordThought(s);
      case 'checkpoint':
        return toCommand.createCheckpoint(s);
    }
  },
  steps: (b: RecordStepsDto): SessionCommand[] => b.steps.map((s) => toCommand.step(s)),
  /** A rollback that records the fork's steps once the head lands (the domain refuses steps a fork cannot start with). */
  fork: (b: ForkDto): MoveHead => ({
    type: 'MoveHead',
    kind: 'rollback',
    toVersion: b.atVersion,
    then: toCommand.steps(b) as StepCommand[],
    ...(b.branchName != null ? { branchName: b.branchName } : {}),
    acknowledgeIrreversible: b.acknowledgeIrreversible ?? false,
  }),
};

function rollbackCommand(b: RollbackDto): MoveHead {
  return {
    type: 'MoveHead',
    kind: 'rollback',
    ...(b.toVersion !== undefined ? { toVersion: b.toVersion } : {}),
    ...(b.toCheckpoint !== undefined ? { toCheckpoint: b.toCheckpoint } : {}),
    acknowledgeIrreversible: b.acknowledgeIrreversible ?? false,
  };
}

/** Only the parts the caller gave: the rest comes from the registered tool. */
export function effectOf(b: EffectDto | RegisterToolDto): Partial<EffectDescriptor> {
  return {
    ...(b.kind !== undefined ? { kind: b.kind } : {}),
    ...(b.compensation ? { compensation: { ...b.compensation } } : {}),
    ...(b.retry ? { retry: { ...b.retry } } : {}),
    ...(b.approval ? { approval: b.approval } : {}),
  };
}
