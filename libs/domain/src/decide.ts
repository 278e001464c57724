import { FORK_STEP_TYPES, type MoveHead, type RollbackCommand, type SessionCommand, type StepCommand } from './commands';
import { mergeEffect, type EffectDescriptor } from './effects';
import { atStepIndex, conflict, DomainError, invalid, notFound } from './errors';
import { isStepEvent, type RecordedSessionEvent, type SessionEvent } from './events';
import { evolveInPlace } from './evolve';
import type { JsonObject } from './json';
import { planHeadMove, resolveHeadMoveTarget, type HeadMovePlan, type HeadMoveTarget } from './head-move';
import { cloneState, findTurn, ownEntry, type PathState, type PendingFork, type RollbackRecord, type SessionState } from './state';
import { isNode } from './timeline';
import { missingRefs } from './templates';
import { assertApproved, assertCompensable } from './tool-call-checks';

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
      const existing = ownEntry(path.toolCalls, command.toolCallId);
      if (existing && existing.status !== 'failed') {
        throw conflict(
          'tool_call_exists',
          `Tool call "${command.toolCallId}" already exists (status ${existing.status}); only a failed call may be started again.`,
        );
      }
      const effect = mergeEffect(ctx.toolEffect?.(command.tool), command.effect);
      const approved = assertApproved(path, command, effect);
      if (effect.kind === 'irreversible' && command.confirmed !== true && !approved) {
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
              confirmed: command.confirmed === true || approved,
              turnId: command.turnId ?? path.turns[path.turns.length - 1]?.turnId ?? null,
            },
          }),
        ],
      };
    }
    case 'ProposeToolCall': {
      assertStorableName('toolCallId', command.toolCallId);
      const call = ownEntry(path.toolCalls, command.toolCallId);
      const proposal = ownEntry(path.proposals, command.toolCallId);
      if ((call && call.status !== 'failed') || proposal?.status === 'pending' || proposal?.status === 'approved') {
        throw conflict(
          'tool_call_exists',
          `Tool call "${command.toolCallId}" is already ${call ? call.status : `proposed (${proposal!.status})`}: propose the next call under a new id.`,
        );
      }
      if (command.turnId !== undefined && !findTurn(path, command.turnId)) {
        throw notFound('turn_not_found', `Turn "${command.turnId}" is not on the current timeline path.`, [{ field: 'turnId', message: 'unknown turn' }]);
      }
      const effect = mergeEffect(ctx.toolEffect?.(command.tool), command.effect);
      assertCompensable(command.tool, effect, command.input);
      return {
        events: [
          step(state, {
            type: 'ToolCallProposed',
            data: {
              toolCallId: command.toolCallId,
              tool: command.tool,
              input: command.input,
              effect,
              turnId: command.turnId ?? path.turns[path.turns.length - 1]?.turnId ?? null,
            },
          }),
        ],
      };
    }
    case 'ApproveToolCall':
    case 'RejectToolCall': {
      const proposal = ownEntry(path.proposals, command.toolCallId);
      if (!proposal) throw notFound('proposal_not_found', `No tool call "${command.toolCallId}" was proposed on the current timeline path.`);
      if (proposal.status !== 'pending') {
        throw conflict(
          'proposal_not_pending',
          `Tool call "${command.toolCallId}" was already ${proposal.status} by ${proposal.decidedBy ?? 'someone'}; a decision is not changed afterwards.`,
        );
      }
      if (command.type === 'ApproveToolCall') {
        return {
          events: [step(state, { type: 'ToolCallApproved', data: { toolCallId: command.toolCallId, approvedBy: ctx.actor, note: command.note ?? null } })],
        };
      }
      return { events: [step(state, { type: 'ToolCallRejected', data: { toolCallId: command.toolCallId, rejectedBy: ctx.actor, reason: command.reason } })] };
    }
    case 'CompleteToolCall':
    case 'FailToolCall': {
      const call = ownEntry(path.toolCalls, command.toolCallId);
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
      const existing = ownEntry(state.checkpoints, command.label);
      if (existing) throw conflict('checkpoint_exists', `Checkpoint "${command.label}" already exists (version ${existing.version}).`);
      return { events: [step(state, { type: 'CheckpointCreated', data: { label: command.label, version: state.head } })] };
    }
    case 'NameBranch': {
      assertBranchName(command.name, 'name');
      if (command.version > state.version) {
        throw notFound('version_not_found', `Version ${command.version} does not exist: the session is at version ${state.version}.`, [
          { field: 'version', message: 'no such version' },
        ]);
      }
      if (!isNode(state.timeline, command.version)) {
        throw invalid('not_a_step', `Version ${command.version} records a rollback or checkpoint, not a step: name a branch by one of its steps.`, [
          { field: 'version', message: 'not a timeline node' },
        ]);
      }
      return { events: [step(state, { type: 'BranchNamed', data: { version: command.version, name: command.name } })] };
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

function rollbackOf(state: SessionState, rollbackId: string): RollbackRecord {
  const rollback = ownEntry(state.rollbacks, rollbackId);
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
    const events = [step(state, { type: 'RollbackCompleted', data: { rollbackId: rollback.rollbackId, toVersion: rollback.toVersion } })];
    const fork = ownEntry(state.pendingForks, rollback.rollbackId);
    if (fork) {
      if (!ctx.pathAt) throw new Error('decide(CompleteRollback) of a fork needs ctx.pathAt to record its steps on the target path');
      events.push(...decideForkSteps(state, rollback.toVersion, ctx.pathAt(rollback.toVersion), events.length, fork, ctx));
    }
    return { events };
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
  const fork = forkOf(command);
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
        ...(fork ? { then: fork.then, branchName: fork.branchName } : {}),
      },
    }),
  ];
  // A fork whose steps would be refused on the target is refused now, not when the saga completes it.
  if (fork && plan.toCompensate.length > 0) decideForkSteps(state, plan.toVersion, ctx.pathAt(plan.toVersion), 0, fork, ctx);
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
    if (fork) events.push(...decideForkSteps(state, plan.toVersion, ctx.pathAt(plan.toVersion), events.length, fork, ctx));
  }
  return { events, plan };
}

const MAX_FORK_STEPS = 100;

function assertBranchName(name: string, field: string): void {
  if (!/^[^\u0000-\u001f]{1,100}$/.test(name)) {
    throw invalid('validation_failed', 'A branch name is 1 to 100 printable characters.', [{ field, message: 'must be 1-100 printable characters' }]);
  }
}

/** A fork's steps and name, checked before the move is accepted (so that the saga never meets a refusal when it completes). */
function forkOf(command: MoveHead): PendingFork | null {
  if (command.then === undefined) {
    if (command.branchName !== undefined) {
      throw invalid('validation_failed', "branchName names the branch a fork starts: send it with the fork's steps.", [
        { field: 'branchName', message: 'without steps' },
      ]);
    }
    return null;
  }
  if (command.kind !== 'rollback')
    throw invalid('validation_failed', 'Only a rollback to a step can fork: undo and redo take no steps.', [{ field: 'steps', message: 'not allowed here' }]);
  if (command.then.length === 0 || command.then.length > MAX_FORK_STEPS) {
    throw invalid('validation_failed', `A fork starts with 1 to ${MAX_FORK_STEPS} steps (got ${command.then.length}).`, [
      { field: 'steps', message: `must hold 1 to ${MAX_FORK_STEPS} steps` },
    ]);
  }
  command.then.forEach((stepCommand, index) => {
    if (!FORK_STEP_TYPES.includes(stepCommand.type)) {
      throw invalid(
        'validation_failed',
        `steps[${index}]: a fork starts with messages, memory, context variables, tasks or thoughts (not ${stepCommand.type}); record it after the fork.`,
        [{ field: `steps.${index}`, message: 'not a step a fork can start with' }],
      );
    }
  });
  if (command.branchName !== undefined) assertBranchName(command.branchName, 'branchName');
  return { then: command.then as unknown as JsonObject[], branchName: command.branchName ?? null };
}

/**
 * A fork's steps, decided one after the other on the target's path as it will be once the head
 * lands (`before` events of this write come first), then the branch's name on its first step.
 */
function decideForkSteps(state: SessionState, toVersion: number, targetPath: PathState, before: number, fork: PendingFork, ctx: DecideContext): PendingEvent[] {
  const scratch = cloneState({ ...state, path: targetPath });
  Object.assign(scratch, { head: toVersion, activeRollbackId: null, status: 'active', version: state.version + before });
  const events: PendingEvent[] = [];
  const firstVersion = scratch.version + 1;
  (fork.then as unknown as StepCommand[]).forEach((command, index) => {
    let decided: PendingEvent[];
    try {
      decided = decide(scratch, command, ctx).events;
    } catch (error) {
      throw error instanceof DomainError ? atStepIndex(error, index) : error;
    }
    for (const pending of decided) {
      const recorded = { ...pending, streamVersion: scratch.version + 1, metadata: { actor: ctx.actor, occurredAt: '' } } as unknown as RecordedSessionEvent;
      evolveInPlace(scratch, recorded, () => {
        throw new Error('the steps of a fork never switch paths');
      });
      events.push(pending);
    }
  });
  if (fork.branchName !== null) events.push({ type: 'BranchNamed', data: { version: firstVersion, name: fork.branchName }, parentVersion: null });
  return events;
}
