import type { DomainErrorKind } from '../errors';

/**
 * Every code with which `decide` refuses a command, the kind (hence the HTTP status) it is
 * refused with, and when. `refusals.unit.spec.ts` checks that this list matches the codes the
 * domain's sources can throw, and `decide.refusals.unit.spec.ts` that each one has a case.
 */
export const REFUSALS = {
  // Any command (assertWritable).
  session_exists: { kind: 'conflict', when: 'StartSession on a session that already has events' },
  session_not_found: { kind: 'not_found', when: 'any other command before the session started' },
  rollback_in_progress: { kind: 'conflict', when: 'any command but the rollback commands while a rollback is active' },
  validation_failed: {
    kind: 'validation',
    when: 'a head move with no target; a retry policy with baseDelayMs > maxDelayMs; "__proto__" as a tool call id, checkpoint label, memory key or variable name; a component name outside [A-Za-z0-9_.-]',
  },
  // Steps.
  turn_not_found: { kind: 'not_found', when: 'an agent message, a tool call or an interrupt naming a turn not on the head path' },
  turn_not_open: { kind: 'conflict', when: 'interrupting a turn that is complete or already interrupted' },
  tool_call_exists: { kind: 'conflict', when: 'starting a tool call whose id is taken by a call that did not fail' },
  confirmation_required: { kind: 'confirmation_required', when: 'starting an irreversible call without confirmed: true' },
  compensation_missing: { kind: 'validation', when: 'a reversible or compensable effect without a compensation' },
  compensation_template_invalid: { kind: 'validation', when: 'a compensation template with braces that are not {{input…}} or {{output…}}' },
  compensation_template_unresolvable: { kind: 'validation', when: 'a call input, or a call output, lacking a field its compensation template refers to' },
  tool_call_not_found: { kind: 'not_found', when: 'completing or failing a call that is not on the head path' },
  tool_call_not_in_progress: { kind: 'conflict', when: 'completing or failing a call that already succeeded or failed' },
  memory_key_not_found: { kind: 'not_found', when: 'erasing a memory key the head does not have' },
  task_stack_empty: { kind: 'conflict', when: 'popping an empty task stack' },
  checkpoint_exists: { kind: 'conflict', when: 'a checkpoint label already used in the session (on any branch)' },
  // Head moves (resolveHeadMoveTarget, then the plan).
  nothing_to_undo: { kind: 'conflict', when: 'undo at the first step' },
  nothing_to_redo: { kind: 'conflict', when: 'redo with no undone or rolled-back head to return to' },
  checkpoint_not_found: { kind: 'not_found', when: 'a rollback to an unknown checkpoint label' },
  version_not_found: { kind: 'not_found', when: 'a rollback to a version after the last one' },
  not_a_step: { kind: 'validation', when: 'a rollback to a version that is not a timeline node (a checkpoint or rollback record)' },
  already_at_version: { kind: 'conflict', when: 'a rollback to the head itself' },
  compensated_effects_on_path: { kind: 'conflict', when: 'a redo or jump whose way passes effects already compensated (or being compensated)' },
  compensation_required: { kind: 'conflict', when: 'a move abandoning reversible or compensable effects while no saga compensates' },
  irreversible_not_acknowledged: { kind: 'conflict', when: 'a move abandoning irreversible effects without acknowledgeIrreversible: true' },
  // Approvals.
  approval_required: { kind: 'conflict', when: 'starting a call that was proposed but not approved, or whose tool requires approval and was not proposed' },
  proposal_mismatch: { kind: 'conflict', when: 'starting an approved call with another tool or other input than approved' },
  proposal_not_found: { kind: 'not_found', when: 'approving or rejecting a call that was not proposed on the head path' },
  proposal_not_pending: { kind: 'conflict', when: 'approving or rejecting a proposal already decided' },
  // Rollback commands (the saga and operators).
  rollback_not_found: { kind: 'not_found', when: 'a rollback command naming no rollback of the session' },
  rollback_not_in_progress: { kind: 'conflict', when: 'completing a rollback that is completed or needs attention' },
  compensations_outstanding: { kind: 'conflict', when: 'completing a rollback with effects neither compensated nor resolved' },
  effect_not_in_rollback: { kind: 'not_found', when: 'an outcome, retry or resolution for an effect the rollback does not compensate' },
  compensation_not_pending: { kind: 'conflict', when: 'recording an outcome for a compensation that is not pending, or while the rollback needs attention' },
  compensation_not_failed: { kind: 'conflict', when: 'retrying or resolving a compensation that has not failed' },
} as const satisfies Record<string, { kind: DomainErrorKind; when: string }>;

export type RefusalCode = keyof typeof REFUSALS;

export const REFUSAL_CODES = Object.keys(REFUSALS) as RefusalCode[];

export function isRefusalCode(code: string): code is RefusalCode {
  return Object.hasOwn(REFUSALS, code);
}
