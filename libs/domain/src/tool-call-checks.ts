import { needsApproval, type EffectDescriptor } from './effects';
import { conflict, invalid } from './errors';
import type { SessionCommand } from './commands';
import { ownEntry, type PathState } from './state';
import { missingRefs } from './templates';
import { validateEffectDeclaration } from './tool-registration';

// The checks a tool call passes before it starts: its approval, and its compensation's template.

/**
 * A call that was proposed starts only once approved, as approved (same tool, same input); a call
 * whose tool requires approval (compensable or irreversible effect) must have been proposed and
 * approved. Returns whether an approval covers the call (it stands for the confirmation too).
 */
export function assertApproved(path: PathState, command: Extract<SessionCommand, { type: 'StartToolCall' }>, effect: EffectDescriptor): boolean {
  const proposal = ownEntry(path.proposals, command.toolCallId);
  if (!proposal) {
    if (!needsApproval(effect)) return false;
    throw conflict(
      'approval_required',
      `Tool "${command.tool}" requires approval for its ${effect.kind} calls: propose it (POST /v1/sessions/:id/proposals), and start it once a person approved it.`,
      [{ field: 'toolCallId', message: 'no approved proposal of this call' }],
    );
  }
  if (proposal.status !== 'approved') {
    throw conflict(
      'approval_required',
      proposal.status === 'pending'
        ? `Tool call "${command.toolCallId}" is waiting for approval: it starts once a person approves it.`
        : `Tool call "${command.toolCallId}" was rejected by ${proposal.decidedBy ?? 'someone'} (${proposal.note ?? 'no reason given'}): it must not run.`,
      [{ field: 'toolCallId', message: `proposal ${proposal.status}` }],
    );
  }
  if (proposal.tool !== command.tool || !sameJson(proposal.input, command.input)) {
    throw conflict(
      'proposal_mismatch',
      `Tool call "${command.toolCallId}" was approved as ${proposal.tool} with other input: start it exactly as approved, or propose the new call.`,
      [{ field: proposal.tool !== command.tool ? 'tool' : 'input', message: 'differs from the approved proposal' }],
    );
  }
  return true;
}

/** JSON values equal whatever the order of their keys. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A call's effect is checked like a registration, plus: its input must fill the template. */
export function assertCompensable(tool: string, effect: EffectDescriptor, input: unknown): void {
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
