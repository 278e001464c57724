import type { SessionState } from '@rewind/domain';

/** A rollback with its plan and each effect's outcome, as the session state tells it now. */
export function presentRollback(state: SessionState, rollbackId: string) {
  const rollback = state.rollbacks[rollbackId];
  if (!rollback) return null;
  return {
    rollbackId,
    sessionId: state.sessionId,
    kind: rollback.kind,
    status: rollback.status,
    fromVersion: rollback.fromVersion,
    toVersion: rollback.toVersion,
    requestedBy: rollback.requestedBy,
    requestedVersion: rollback.requestedVersion,
    completedVersion: rollback.completedVersion,
    acknowledgeIrreversible: rollback.acknowledgeIrreversible,
    effects: rollback.plan.map((item) => {
      const outcome = state.effectOutcomes[item.startedVersion];
      const mine = outcome?.rollbackId === rollbackId ? outcome : undefined;
      return {
        toolCallId: item.toolCallId,
        tool: item.tool,
        startedVersion: item.startedVersion,
        effect: item.effect.kind,
        channel: item.effect.compensation?.channel ?? null,
        action: item.action,
        reason: item.reason,
        status: mine?.status ?? (item.action === 'skip' ? 'skipped' : 'pending'),
        attempts: mine?.attempts ?? 0,
        detail: mine?.detail ?? null,
      };
    }),
  };
}
