import type { MoveHead } from './commands';
import { conflict, invalid, notFound } from './errors';
import type { HeadMoveKind, PlannedEffect } from './events';
import type { EffectOutcome, PathState, SessionState, ToolCall } from './state';
import { fillCompensation, unfillableRefs } from './templates';
import { commonAncestor, isAncestor, isNode, parentOf } from './timeline';

export interface HeadMoveTarget {
  kind: HeadMoveKind;
  toVersion: number;
}

/** What moving the head would do: the effects it abandons and the ones it walks back onto. */
export interface HeadMovePlan {
  kind: HeadMoveKind;
  fromVersion: number;
  toVersion: number;
  commonAncestor: number;
  /** Effects on the abandoned path, newest first. */
  effects: PlannedEffect[];
  /** Effects that must be compensated by the saga. */
  toCompensate: PlannedEffect[];
  /** Irreversible effects: rolled back past only with acknowledgement, recorded as skipped. */
  irreversible: PlannedEffect[];
  /** Effects on the way to the target that were already compensated: they block the move. */
  compensatedOnTheWay: { toolCallId: string; tool: string; startedVersion: number }[];
}

/**
 * A version is a step boundary unless it lies between a tool call's start and its result
 * (a call and its result are one step). A call that never finished does not hold later
 * steps hostage: they stay boundaries.
 */
function isStepBoundary(path: PathState, version: number): boolean {
  return !Object.values(path.toolCalls).some((call) => call.finishedVersion !== null && call.startedVersion <= version && call.finishedVersion > version);
}

export function resolveHeadMoveTarget(state: SessionState, command: MoveHead): HeadMoveTarget {
  if (command.kind === 'undo') {
    const steps = command.steps ?? 1;
    let version = state.head;
    for (let i = 0; i < steps; i++) {
      let candidate = parentOf(state.timeline, version);
      while (candidate > 1 && !isStepBoundary(state.path, candidate)) candidate = parentOf(state.timeline, candidate);
      if (candidate < 1) break;
      version = candidate;
    }
    if (version === state.head) throw conflict('nothing_to_undo', 'The session is at its first step: there is nothing to undo.');
    return { kind: 'undo', toVersion: version };
  }
  if (command.kind === 'redo') {
    const toVersion = state.redoStack[state.redoStack.length - 1];
    if (toVersion === undefined) {
      throw conflict('nothing_to_redo', 'Nothing to redo: no undo or rollback has happened since the last step was recorded.');
    }
    return { kind: 'redo', toVersion };
  }
  let toVersion = command.toVersion;
  if (command.toCheckpoint !== undefined) {
    const checkpoint = Object.hasOwn(state.checkpoints, command.toCheckpoint) ? state.checkpoints[command.toCheckpoint] : undefined;
    if (!checkpoint) {
      throw notFound('checkpoint_not_found', `No checkpoint is labelled "${command.toCheckpoint}" in this session.`, [
        { field: 'toCheckpoint', message: `known labels: ${Object.keys(state.checkpoints).join(', ') || 'none'}` },
      ]);
    }
    toVersion = checkpoint.version;
  }
  if (toVersion === undefined) {
    throw invalid('validation_failed', 'A rollback needs a target: give toVersion or toCheckpoint.', [
      { field: 'toVersion', message: 'toVersion or toCheckpoint is required' },
    ]);
  }
  if (toVersion > state.version) {
    throw notFound('version_not_found', `Version ${toVersion} does not exist: the session is at version ${state.version}.`, [
      { field: 'toVersion', message: `must be between 1 and ${state.version}` },
    ]);
  }
  if (!isNode(state.timeline, toVersion)) {
    throw invalid('not_a_step', `Version ${toVersion} records a rollback or checkpoint, not a step: roll back to a step.`, [
      { field: 'toVersion', message: 'must be the version of a step event' },
    ]);
  }
  if (toVersion === state.head) throw conflict('already_at_version', `The head is already at version ${toVersion}.`);
  return { kind: isAncestor(state.timeline, toVersion, state.head) ? 'rollback' : 'jump', toVersion };
}

function planEffect(call: ToolCall): PlannedEffect | null {
  if (call.effect.kind === 'none') return null;
  const base = { toolCallId: call.toolCallId, tool: call.tool, startedVersion: call.startedVersion, effect: call.effect, callStatus: call.status };
  if (call.status === 'failed') return { ...base, action: 'skip', reason: 'the call failed, so it had no effect to undo' };
  if (call.effect.kind === 'irreversible') return { ...base, action: 'skip', reason: 'irreversible: it cannot be undone' };
  const unfillable = call.effect.compensation ? unfillableRefs(call.effect.compensation, call) : [];
  if (unfillable.length > 0) {
    // Planned like any compensation, so the rollback waits for it; the saga sends nothing and
    // records it failed with this reason, which leaves the session needing an operator.
    return { ...base, action: 'compensate', reason: needsOperatorReason(call, unfillable) };
  }
  return { ...base, action: 'compensate', reason: null };
}

/** Outcomes that block walking back onto their effect: re-executing it is not supported. */
const BLOCKS_RETURN = new Set(['compensated', 'resolved', 'pending', 'failed']);

/** Effects a move to `toVersion` would walk back onto though a rollback already dealt with them, newest first. */
export function dealtWithOnTheWayTo(state: SessionState, toVersion: number): EffectOutcome[] {
  const ancestor = commonAncestor(state.timeline, state.head, toVersion);
  const outcomes: EffectOutcome[] = [];
  for (let version = toVersion; version > ancestor; version = parentOf(state.timeline, version)) {
    const outcome = state.effectOutcomes[version];
    if (outcome && BLOCKS_RETURN.has(outcome.status)) outcomes.push(outcome);
  }
  return outcomes;
}

/** Why redo would be refused (null when there is nothing to redo, or when redo would work). */
export function redoBlockedBy(state: SessionState): string | null {
  const toVersion = state.redoStack[state.redoStack.length - 1];
  if (toVersion === undefined) return null;
  const blockers = dealtWithOnTheWayTo(state, toVersion);
  if (blockers.length === 0) return null;
  const calls = blockers.map((outcome) => `"${outcome.toolCallId}" (${outcome.status})`).join(', ');
  return `Redo would return to tool calls a rollback already undid or is undoing: ${calls}. Re-executing them is not supported: record those steps again instead.`;
}

/** Why a compensation cannot be sent, and what an operator does about it. */
export function needsOperatorReason(call: Pick<ToolCall, 'status' | 'toolCallId'>, unfillable: string[]): string {
  const refs = unfillable.map((ref) => `{{${ref}}}`).join(', ');
  const why =
    call.status === 'started'
      ? `the call "${call.toolCallId}" started but never finished, so ${refs} in its compensation is unknown`
      : `${refs} in the compensation of "${call.toolCallId}" has no value`;
  return `needs an operator: ${why}. Nothing was sent. Check whether the call took effect, undo it by hand if it did, then resolve this effect.`;
}

/** Plans a head move from the current head to `target`, given the target's path state. */
export function planHeadMove(state: SessionState, target: HeadMoveTarget, targetPath: PathState): HeadMovePlan {
  const ancestor = commonAncestor(state.timeline, state.head, target.toVersion);
  const effects = Object.values(state.path.toolCalls)
    .filter((call) => call.startedVersion > ancestor)
    .filter((call) => {
      // Already undone (by the saga or by hand): nothing left to do about it.
      const status = state.effectOutcomes[call.startedVersion]?.status;
      return status !== 'compensated' && status !== 'resolved';
    })
    .sort((a, b) => b.startedVersion - a.startedVersion)
    .map(planEffect)
    .filter((item): item is PlannedEffect => item !== null);
  const compensatedOnTheWay = Object.values(targetPath.toolCalls)
    .filter((call) => call.startedVersion > ancestor && BLOCKS_RETURN.has(state.effectOutcomes[call.startedVersion]?.status ?? ''))
    .map((call) => ({ toolCallId: call.toolCallId, tool: call.tool, startedVersion: call.startedVersion }));
  return {
    kind: target.kind,
    fromVersion: state.head,
    toVersion: target.toVersion,
    commonAncestor: ancestor,
    effects,
    toCompensate: effects.filter((e) => e.action === 'compensate'),
    irreversible: effects.filter((e) => e.action === 'skip' && e.effect.kind === 'irreversible' && e.callStatus !== 'failed'),
    compensatedOnTheWay,
  };
}

/**
 * A plan as a dry run shows it: each compensation that will be sent carries its target and payload
 * filled from the call's input and output (`/bookings/H-1/cancel`, not `/bookings/{{output.bookingId}}/cancel`),
 * as the saga will send them. Ones it cannot fill (a reason says why) keep their template. Only
 * for answers: the plan a rollback records keeps the templates, filled when sent.
 */
export function withFilledCompensations(plan: HeadMovePlan, path: PathState): HeadMovePlan {
  const filled = (planned: PlannedEffect): PlannedEffect => {
    const spec = planned.effect.compensation;
    const call = Object.hasOwn(path.toolCalls, planned.toolCallId) ? path.toolCalls[planned.toolCallId] : undefined;
    if (!spec || !call || planned.action !== 'compensate' || planned.reason !== null) return planned;
    const { target, payload } = fillCompensation(spec, { input: call.input, output: call.output });
    return {
      ...planned,
      effect: { ...planned.effect, compensation: { ...spec, target, ...(spec.payload !== undefined ? { payload: payload as typeof spec.payload } : {}) } },
    };
  };
  return { ...plan, effects: plan.effects.map(filled), toCompensate: plan.toCompensate.map(filled), irreversible: plan.irreversible.map(filled) };
}
