import type { SessionCommand } from './commands';
import { NO_EFFECT, type EffectDescriptor } from './effects';
import { conflict, DomainError, notFound } from './errors';
import { isStepEvent, type SessionEvent } from './events';
import { planHeadMove, resolveHeadMoveTarget, type HeadMovePlan } from './head-move';
import type { PathState, SessionState } from './state';

export interface DecideContext {
  /** A fresh unique id (injected so that `decide` stays deterministic). */
  newId(): string;
  actor: string;
  /** Path state at a timeline node; needed by head moves only. */
  pathAt?: (version: number) => PathState;
  /** The registered effect of a tool, used when a call does not declare one. */
  toolEffect?: (tool: string) => EffectDescriptor | undefined;
  /** True once a saga carries out compensations; until then such moves are refused. */
  compensationEnabled?: boolean;
}

export type PendingEvent = SessionEvent & { parentVersion: number | null };

export interface Decision {
  events: PendingEvent[];
  plan?: HeadMovePlan;
}

function step<E extends SessionEvent>(state: SessionState, event: E): PendingEvent {
  return { ...event, parentVersion: isStepEvent(event.type) ? state.head || null : null };
}

function assertWritable(state: SessionState, command: SessionCommand): void {
  if (command.type === 'StartSession') {
    if (state.version > 0) throw conflict('session_exists', `Session "${command.sessionId}" already exists.`);
    return;
  }
  if (state.version === 0) throw notFound('session_not_found', 'No such session.');
  if (state.activeRollbackId !== null) {
    throw conflict(
      'rollback_in_progress',
      `Rollback ${state.activeRollbackId} is in progress (status ${state.status}); writes resume when it completes.`,
      [{ message: 'see GET /v1/rollbacks/' + state.activeRollbackId, rollbackId: state.activeRollbackId }],
    );
  }
}

/** Decides which events a command produces, or throws a DomainError. Pure. */
export function decide(state: SessionState, command: SessionCommand, ctx: DecideContext): Decision {
  assertWritable(state, command);
  const path = state.path;
  switch (command.type) {
    case 'StartSession':
      return {
        events: [
          step(state, {
            type: 'SessionStarted',
            data: { sessionId: command.sessionId, title: command.title ?? null, metadata: command.metadata ?? {} },
          }),
        ],
      };
    case 'RecordMessage': {
      if (command.role === 'user') {
        const turnId = command.turnId ?? ctx.newId();
        return { events: [step(state, { type: 'UserMessageReceived', data: { turnId, messageId: ctx.newId(), content: command.content } })] };
      }
      let turnId = command.turnId;
      if (turnId !== undefined && !path.turns.some((t) => t.turnId === turnId)) {
        throw notFound('turn_not_found', `Turn "${turnId}" is not on the current timeline path.`, [{ field: 'turnId', message: 'unknown turn' }]);
      }
      turnId ??= path.turns[path.turns.length - 1]?.turnId ?? ctx.newId();
      return { events: [step(state, { type: 'AgentMessageProduced', data: { turnId, messageId: ctx.newId(), content: command.content } })] };
    }
    case 'StartToolCall': {
      const existing = path.toolCalls[command.toolCallId];
      if (existing && existing.status !== 'failed') {
        throw conflict('tool_call_exists', `Tool call "${command.toolCallId}" already exists (status ${existing.status}); only a failed call may be started again.`);
      }
      const effect = command.effect ?? ctx.toolEffect?.(command.tool) ?? NO_EFFECT;
      if (effect.kind === 'irreversible' && command.confirmed !== true) {
        throw new DomainError(
          'confirmation_required',
          'confirmation_required',
          `Tool "${command.tool}" has an irreversible effect: it cannot be undone by a rollback. Ask the user, then send the call again with "confirmed": true.`,
          [{ field: 'confirmed', message: 'must be true for an irreversible effect' }],
        );
      }
      if (command.turnId !== undefined && !path.turns.some((t) => t.turnId === command.turnId)) {
        throw notFound('turn_not_found', `Turn "${command.turnId}" is not on the current timeline path.`, [{ field: 'turnId', message: 'unknown turn' }]);
      }
      return {
        events: [
          step(state, {
            type: 'ToolCallStarted',
            data: {
              toolCallId: command.toolCallId,
              tool: command.tool,
              input: command.input,
              effect,
              confirmed: command.confirmed === true,
              turnId: command.turnId ?? path.turns[path.turns.length - 1]?.turnId ?? null,
            },
          }),
        ],
      };
    }
    case 'CompleteToolCall':
    case 'FailToolCall': {
      const call = path.toolCalls[command.toolCallId];
      if (!call) throw notFound('tool_call_not_found', `Tool call "${command.toolCallId}" is not on the current timeline path.`);
      if (call.status !== 'started') {
        throw conflict('tool_call_not_in_progress', `Tool call "${command.toolCallId}" has already ${call.status}.`);
      }
      return {
        events: [
          command.type === 'CompleteToolCall'
            ? step(state, { type: 'ToolCallSucceeded', data: { toolCallId: command.toolCallId, output: command.output } })
            : step(state, { type: 'ToolCallFailed', data: { toolCallId: command.toolCallId, error: command.error, retryable: command.retryable ?? false } }),
        ],
      };
    }
    case 'WriteMemory':
      return { events: [step(state, { type: 'MemoryWritten', data: { key: command.key, value: command.value } })] };
    case 'EraseMemory':
      if (!(command.key in path.memory)) throw notFound('memory_key_not_found', `Memory has no key "${command.key}" at the head.`);
      return { events: [step(state, { type: 'MemoryErased', data: { key: command.key } })] };
    case 'SetContextVariable':
      return { events: [step(state, { type: 'ContextVariableSet', data: { name: command.name, value: command.value } })] };
    case 'PushTask':
      return { events: [step(state, { type: 'TaskPushed', data: { taskId: command.taskId ?? ctx.newId(), title: command.title, data: command.data ?? null } })] };
    case 'PopTask': {
      const top = path.tasks[path.tasks.length - 1];
      if (!top) throw conflict('task_stack_empty', 'The task stack is empty: there is nothing to pop.');
      return { events: [step(state, { type: 'TaskPopped', data: { taskId: top.taskId } })] };
    }
    case 'InterruptTurn': {
      const turn = path.turns.find((t) => t.turnId === command.turnId);
      if (!turn) throw notFound('turn_not_found', `Turn "${command.turnId}" is not on the current timeline path.`);
      if (turn.status !== 'open') throw conflict('turn_not_open', `Turn "${command.turnId}" is already ${turn.status}; only an open turn can be interrupted.`);
      return { events: [step(state, { type: 'TurnInterrupted', data: { turnId: command.turnId, partialContent: command.partialContent } })] };
    }
    case 'CreateCheckpoint':
      if (state.checkpoints[command.label]) {
        throw conflict('checkpoint_exists', `Checkpoint "${command.label}" already exists (version ${state.checkpoints[command.label]!.version}).`);
      }
      return { events: [step(state, { type: 'CheckpointCreated', data: { label: command.label, version: state.head } })] };
    case 'MoveHead':
      return decideHeadMove(state, command, ctx);
  }
}

function decideHeadMove(state: SessionState, command: Extract<SessionCommand, { type: 'MoveHead' }>, ctx: DecideContext): Decision {
  const target = resolveHeadMoveTarget(state, command);
  if (!ctx.pathAt) throw new Error('decide(MoveHead) needs ctx.pathAt to read the target path state');
  const plan = planHeadMove(state, target, ctx.pathAt(target.toVersion));
  const named = (items: { toolCallId: string; tool: string; startedVersion: number }[]) =>
    items.map((i) => ({ message: `${i.tool} call "${i.toolCallId}" (version ${i.startedVersion})`, toolCallId: i.toolCallId, tool: i.tool, startedVersion: i.startedVersion }));
  if (plan.compensatedOnTheWay.length > 0) {
    throw conflict(
      'compensated_effects_on_path',
      `Cannot move to version ${plan.toVersion}: the way there passes effects that were already compensated, and re-executing them is not supported.`,
      named(plan.compensatedOnTheWay),
    );
  }
  if (plan.toCompensate.length > 0 && !ctx.compensationEnabled) {
    throw conflict(
      'compensation_required',
      `Moving to version ${plan.toVersion} would abandon tool calls with external effects; they must be compensated first.`,
      named(plan.toCompensate),
    );
  }
  if (plan.irreversible.length > 0 && command.acknowledgeIrreversible !== true) {
    throw conflict(
      'irreversible_not_acknowledged',
      `Moving to version ${plan.toVersion} passes irreversible effects that cannot be undone; send "acknowledgeIrreversible": true to roll back anyway (they will be recorded as skipped).`,
      named(plan.irreversible),
    );
  }
  const rollbackId = ctx.newId();
  const events: PendingEvent[] = [
    step(state, {
      type: 'RollbackRequested',
      data: {
        rollbackId,
        kind: plan.kind,
        fromVersion: plan.fromVersion,
        toVersion: plan.toVersion,
        plan: plan.effects,
        acknowledgeIrreversible: command.acknowledgeIrreversible === true,
      },
    }),
  ];
  for (const item of plan.effects) {
    if (item.action !== 'skip') continue;
    const acknowledgedBy = item.effect.kind === 'irreversible' && item.callStatus !== 'failed' ? ctx.actor : null;
    events.push(
      step(state, {
        type: 'CompensationSkipped',
        data: { rollbackId, toolCallId: item.toolCallId, startedVersion: item.startedVersion, reason: item.reason ?? 'skipped', acknowledgedBy },
      }),
    );
  }
  if (plan.toCompensate.length === 0) {
    events.push(step(state, { type: 'RollbackCompleted', data: { rollbackId, toVersion: plan.toVersion } }));
  }
  return { events, plan };
}
