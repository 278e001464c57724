import type { RollbackEffectView } from '../api/types';

/** A tool call on one branch: ids may repeat across branches, the version it started at does not. */
export const outcomeKey = (toolCallId: string, startedVersion: number) => `${toolCallId}@${startedVersion}`;

/**
 * What a compensation outcome is called where a person reads it. `skipped` is an irreversible
 * effect a rollback went past: it stays done, so it is said as kept (not in the green of an undone one).
 */
const OUTCOME_WORDS: Record<string, string> = { skipped: 'kept — irreversible' };

export function outcomeWord(status: string): string {
  return OUTCOME_WORDS[status] ?? status.replace(/_/g, ' ');
}

/**
 * How far the compensation got, in words: a pending one with no attempt finished is under way
 * (not "0 attempts"); an irreversible effect kept was never attempted, and its badge says so.
 */
export function attemptsSaid(e: Pick<RollbackEffectView, 'status' | 'attempts'>, rollbackStatus: string): string | null {
  if (e.status === 'skipped') return null;
  if (e.status === 'pending') {
    if (rollbackStatus !== 'in_progress') return e.attempts === 0 ? 'not attempted' : `${e.attempts} attempt${e.attempts === 1 ? '' : 's'} so far`;
    return e.attempts === 0 ? 'first attempt under way' : `attempt ${e.attempts + 1} under way`;
  }
  return `${e.attempts} attempt${e.attempts === 1 ? '' : 's'}`;
}
