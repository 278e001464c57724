import type { RollbackCommand, SessionCommand } from './commands';
import { mergeEffect, type EffectDescriptor } from './effects';
import { conflict, DomainError, invalid, notFound } from './errors';
import { isStepEvent, type SessionEvent } from './events';
import { planHeadMove, resolveHeadMoveTarget, type HeadMovePlan, type HeadMoveTarget } from './head-move';
import { findTurn, type PathState, type RollbackRecord, type SessionState } from './state';
import { missingRefs } from './templates';
import { validateEffectDeclaration } from './tool-registration';

export interface DecideContext {
  /** A fresh unique id (injected so that `decide` stays deterministic). */
  newId(): string;
  actor: string;
  /** Path state at a timeline node; needed by head moves only. */
  pathAt?: (version: number) => PathState;
  /** A head move's target, when the caller resolved it already (to load its path): not resolved again. */
  headMoveTarget?: HeadMoveTarget;
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

/**
 * The entry of a state record that a caller's id, label or key names: own keys only, so that a
 * name Object.prototype has ("constructor", "toString", …) is not mistaken for an entry.
 */
function entry<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A name that will key a state record. "__proto__" cannot: assigning it replaces the record's prototype, and evolve would lose the entry. */
function assertStorableName(field: string, name: string): void {
  if (name === '__proto__') throw invalid('validation_failed', `"__proto__" cannot be used as a ${field}.`, [{ field, message: 'reserved name' }]);
}

const ROLLBACK_COMMANDS = new Set(['RecordCompensationOutcome', 'CompleteRollback', 'RetryCompensation', 'ResolveCompensation']);
const isRollbackCommand = (command: SessionCommand): command is RollbackCommand => ROLLBACK_COMMANDS.has(command.type);

function assertWritable(state: SessionState, command: SessionCommand): void {
  if (command.type === 'StartSession') {
    if (state.version > 0) throw conflict('session_exists', `Session "${command.sessionId}" already exists.`);
    return;
  }
  if (state.version === 0) throw notFound('session_not_found', 'No such session.');
  // The saga's own records, and the record of a shredding (keys are destroyed whatever the session is doing).
  if (isRollbackCommand(command) || command.type === 'RecordShredding') return;
  if (state.activeRollbackId !== null) {
    throw conflict('rollback_in_progress', `Rollback ${state.activeRollbackId} is in progress (status ${state.status}); writes resume when it completes.`, [
      { message: 'see GET /v1/rollbacks/' + state.activeRollbackId, rollbackId: state.activeRollbackId },
    ]);
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
      if (turnId !== undefined && !findTurn(path, turnId)) {
        throw notFound('turn_not_found', `Turn "${turnId}" is not on the current timeline path.`, [{ field: 'turnId', message: 'unknown turn' }]);
      }
      turnId ??= path.turns[path.turns.length - 1]?.turnId ?? ctx.newId();
      return { events: [step(state, { type: 'AgentMessageProduced', data: { turnId, messageId: ctx.newId(), content: command.content } })] };
    }
    case 'StartToolCall': {
      assertStorableName('toolCallId', command.toolCallId);
      const existing = entry(path.toolCalls, command.toolCallId);
      if (existing && existing.status !== 'failed') {
        throw conflict(
          'tool_call_exists',
          `Tool call "${command.toolCallId}" already exists (status ${existing.status}); only a failed call may be started again.`,
        );
      }
      const effect = mergeEffect(ctx.toolEffect?.(command.tool), command.effect);
      if (effect.kind === 'irreversible' && command.confirmed !== true) {
        throw new DomainError(
          'confirmation_required',
          'confirmation_required',
          `Tool "${command.tool}" has an irreversible effect: it cannot be undone by a rollback. Ask the user, then send the call again with "confirmed": true.`,
          [{ field: 'confirmed', message: 'must be true for an irreversible effect' }],
        );
      }
      if (command.turnId !== undefined && !findTurn(path, command.turnId)) {
        throw notFound('turn_not_found', `Turn "${command.turnId}" is not on the current timeline path.`, [{ field: 'turnId', message: 'unknown turn' }]);
      }
      assertCompensable(command.tool, effect, command.input);
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
      const call = entry(path.toolCalls, command.toolCallId);
      if (!call) throw notFound('tool_call_not_found', `Tool call "${command.toolCallId}" is not on the current timeline path.`);
      if (call.status !== 'started') {
        throw conflict('tool_call_not_in_progress', `Tool call "${command.toolCallId}" has already ${call.status}.`);
      }
      if (command.type === 'CompleteToolCall' && call.effect.compensation) {
        const missing = missingRefs(call.effect.compensation, 'output', { input: call.input, output: command.output });
        if (missing.length > 0) {
          throw invalid(
            'compensation_template_unresolvable',
            `The output of "${command.toolCallId}" lacks ${missing.join(', ')}, which its compensation needs: without it the effect could not be undone. Send an output that has it.`,
            missing.map((ref) => ({ field: ref, message: 'referenced by the compensation template but missing' })),
          );
        }
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
      assertStorableName('key', command.key);
      return { events: [step(state, { type: 'MemoryWritten', data: { key: command.key, value: command.value } })] };
    case 'EraseMemory':
      if (!Object.hasOwn(path.memory, command.key)) throw notFound('memory_key_not_found', `Memory has no key "${command.key}" at the head.`);
      return { events: [step(state, { type: 'MemoryErased', data: { key: command.key } })] };
    case 'SetContextVariable':
      assertStorableName('name', command.name);
      return { events: [step(state, { type: 'ContextVariableSet', data: { name: command.name, value: command.value } })] };
    case 'PushTask':
      return {
        events: [step(state, { type: 'TaskPushed', data: { taskId: command.taskId ?? ctx.newId(), title: command.title, data: command.data ?? null } })],
      };
    case 'PopTask': {
      const top = path.tasks[path.tasks.length - 1];
      if (!top) throw conflict('task_stack_empty', 'The task stack is empty: there is nothing to pop.');
      return { events: [step(state, { type: 'TaskPopped', data: { taskId: top.taskId } })] };
    }
    case 'InterruptTurn': {
      const turn = findTurn(path, command.turnId);
      if (!turn) throw notFound('turn_not_found', `Turn "${command.turnId}" is not on the current timeline path.`);
      if (turn.status !== 'open') throw conflict('turn_not_open', `Turn "${command.turnId}" is already ${turn.status}; only an open turn can be interrupted.`);
      return { events: [step(state, { type: 'TurnInterrupted', data: { turnId: command.turnId, partialContent: command.partialContent } })] };
    }
    case 'RecordThought': {
      if (command.turnId !== undefined && !findTurn(path, command.turnId)) {
        throw notFound('turn_not_found', `Turn "${command.turnId}" is not on the current timeline path.`, [{ field: 'turnId', message: 'unknown turn' }]);
      }
      if (command.content.length === 0 && (command.steps ?? []).every((s) => s.length === 0)) {
        throw invalid('validation_failed', 'A thought needs some text: give content or at least one non-empty step.', [
          { field: 'content', message: 'empty thought' },
        ]);
      }
      const turnId = command.turnId ?? path.turns[path.turns.length - 1]?.turnId ?? null;
      return {
        events: [
          step(state, { type: 'AgentThoughtRecorded', data: { thoughtId: ctx.newId(), turnId, content: command.content, steps: [...(command.steps ?? [])] } }),
        ],
      };
    }
    case 'CreateCheckpoint': {
      assertStorableName('label', command.label);
      const existing = entry(state.checkpoints, command.label);
      if (existing) throw conflict('checkpoint_exists', `Checkpoint "${command.label}" already exists (version ${existing.version}).`);
      return { events: [step(state, { type: 'CheckpointCreated', data: { label: command.label, version: state.head } })] };
    }
    case 'RecordShredding':
      return { events: [step(state, { type: 'DataShredded', data: { keyIds: [...command.keyIds], reason: command.reason } })] };
    case 'MoveHead':
      return decideHeadMove(state, command, ctx);
    case 'RecordCompensationOutcome':
    case 'CompleteRollback':
    case 'RetryCompensation':
    case 'ResolveCompensation':
      return decideRollbackCommand(state, command, ctx);
  }
}

/** A call's effect is checked like a registration, plus: its input must fill the template. */
function assertCompensable(tool: string, effect: EffectDescriptor, input: unknown): void {
  validateEffectDeclaration(tool, effect);
  if (!effect.compensation) return;
  const missing = missingRefs(effect.compensation, 'input', { input: input as never });
  if (missing.length > 0) {
    throw invalid(
      'compensation_template_unresolvable',
      `The input of this "${tool}" call lacks ${missing.join(', ')}, which its compensation needs: add it to the input or fix the template.`,
      missing.map((ref) => ({ field: ref, message: 'referenced by the compensation template but missing' })),
    );
  }
}

function rollbackOf(state: SessionState, rollbackId: string): RollbackRecord {
  const rollback = entry(state.rollbacks, rollbackId);
  if (!rollback) throw notFound('rollback_not_found', `No rollback "${rollbackId}" in this session.`);
  return rollback;
}

function decideRollbackCommand(state: SessionState, command: RollbackCommand, ctx: DecideContext): Decision {
  const rollback = rollbackOf(state, command.rollbackId);
  if (command.type === 'CompleteRollback') {
    if (rollback.status !== 'in_progress') throw conflict('rollback_not_in_progress', `Rollback ${rollback.rollbackId} is ${rollback.status}.`);
    const open = rollback.plan.filter(
      (item) => item.action === 'compensate' && !['compensated', 'resolved'].includes(state.effectOutcomes[item.startedVersion]?.status ?? ''),
    );
    if (open.length > 0) {
      throw conflict(
        'compensations_outstanding',
        `Rollback ${rollback.rollbackId} still has effects to compensate.`,
        open.map((i) => ({ message: i.toolCallId, toolCallId: i.toolCallId })),
      );
    }
    return { events: [step(state, { type: 'RollbackCompleted', data: { rollbackId: rollback.rollbackId, toVersion: rollback.toVersion } })] };
  }
  const item =
    command.type === 'RecordCompensationOutcome'
      ? rollback.plan.find((i) => i.startedVersion === command.startedVersion)
      : rollback.plan.find((i) => i.toolCallId === command.toolCallId);
  if (!item || item.action !== 'compensate') {
    throw notFound('effect_not_in_rollback', `That effect is not one rollback ${rollback.rollbackId} compensates.`);
  }
  const outcome = state.effectOutcomes[item.startedVersion];
  const ids = { rollbackId: rollback.rollbackId, toolCallId: item.toolCallId, startedVersion: item.startedVersion };
  if (command.type === 'RecordCompensationOutcome') {
    if (rollback.status !== 'in_progress' || outcome?.status !== 'pending') {
      throw conflict('compensation_not_pending', `The compensation of "${item.toolCallId}" is ${outcome?.status ?? 'unknown'}, not pending.`);
    }
    const o = command.outcome;
    if (o.status === 'applied') return { events: [step(state, { type: 'CompensationApplied', data: { ...ids, attempts: o.attempts, response: o.response } })] };
    if (o.status === 'failed') return { events: [step(state, { type: 'CompensationFailed', data: { ...ids, attempts: o.attempts, error: o.error } })] };
    return { events: [step(state, { type: 'CompensationAttemptFailed', data: { ...ids, attempt: o.attempt, error: o.error, retryInMs: o.retryInMs } })] };
  }
  if (outcome?.status !== 'failed') {
    throw conflict(
      'compensation_not_failed',
      `The compensation of "${item.toolCallId}" is ${outcome?.status ?? 'unknown'}: only a failed compensation can be retried or resolved.`,
    );
  }
  if (command.type === 'RetryCompensation') {
    return { events: [step(state, { type: 'CompensationRetryRequested', data: { ...ids, requestedBy: ctx.actor } })] };
  }
  return { events: [step(state, { type: 'CompensationResolved', data: { ...ids, resolvedBy: ctx.actor, note: command.note } })] };
}

function decideHeadMove(state: SessionState, command: Extract<SessionCommand, { type: 'MoveHead' }>, ctx: DecideContext): Decision {
  const target = ctx.headMoveTarget ?? resolveHeadMoveTarget(state, command);
  if (!ctx.pathAt) throw new Error('decide(MoveHead) needs ctx.pathAt to read the target path state');
  const plan = planHeadMove(state, target, ctx.pathAt(target.toVersion));
  const named = (items: { toolCallId: string; tool: string; startedVersion: number }[]) =>
    items.map((i) => ({
      message: `${i.tool} call "${i.toolCallId}" (version ${i.startedVersion})`,
      toolCallId: i.toolCallId,
      tool: i.tool,
      startedVersion: i.startedVersion,
    }));
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
  // The rollback id names its session, so it can be looked up without an index.
  const rollbackId = `${state.sessionId}~${ctx.newId()}`;
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
