import type { EffectDescriptor } from './effects';
import { invalid } from './errors';
import { templateSyntaxProblems } from './templates';

/** A tool's effect, as registered once with `PUT /v1/tools/:name`. */
export interface ToolRegistered {
  type: 'ToolRegistered';
  data: { name: string; effect: EffectDescriptor };
}

/**
 * Rejects an effect that could not be undone at rollback time: a reversible or
 * compensable effect without a compensation, or a template that is not well formed.
 */
export function validateEffectDeclaration(tool: string, effect: EffectDescriptor): void {
  if ((effect.kind === 'reversible' || effect.kind === 'compensable') && !effect.compensation) {
    throw invalid(
      'compensation_missing',
      `Tool "${tool}" is declared ${effect.kind} but has no compensation: register it (PUT /v1/tools/${tool}) or send effect.compensation.`,
      [{ field: 'compensation', message: `required for a ${effect.kind} effect` }],
    );
  }
  if (!effect.compensation) return;
  const problems = templateSyntaxProblems(effect.compensation);
  if (problems.length > 0)
    throw invalid('compensation_template_invalid', `The compensation template of "${tool}" is not valid: ${problems[0]!.message}.`, problems);
  if (effect.retry && effect.retry.baseDelayMs > effect.retry.maxDelayMs) {
    throw invalid('validation_failed', 'retry.baseDelayMs must not exceed retry.maxDelayMs.', [
      { field: 'retry.baseDelayMs', message: 'greater than maxDelayMs' },
    ]);
  }
}
