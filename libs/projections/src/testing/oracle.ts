import { ancestry, replay, timelineView, type RecordedSessionEvent } from '@rewind/domain';
import type { StoredEvent } from '@rewind/event-store';
import type { Row } from '../schema';

/**
 * What the read models of one session must hold, computed independently from the domain's
 * own definitions (`replay`, `foldPath`, the timeline helpers) over the session's events.
 */
export interface ExpectedSession {
  session: Row;
  nodes: Row[];
  headMessages: Row[];
  /** Per tool call start: its result and compensation outcome. */
  ledger: Row[];
  rollbacks: Row[];
}

const MESSAGE_TYPES = new Set(['UserMessageReceived', 'AgentMessageProduced']);

export function expectedSession(stored: readonly StoredEvent[]): ExpectedSession {
  const events = stored as unknown as RecordedSessionEvent[];
  const state = replay(events);
  const onPath = new Set(ancestry(state.timeline, state.head));
  const first = events[0]!;
  const last = events[events.length - 1]!;
  const tenantId = first.metadata.tenantId;
  const sessionId = state.sessionId || first.metadata.sessionId;
  const messageCount = events.filter(
    (e) => MESSAGE_TYPES.has(e.type) || (e.type === 'TurnInterrupted' && (e.data as { partialContent: string }).partialContent.length > 0),
  ).length;
  const failedEffects =
    state.activeRollbackId === null
      ? 0
      : Object.values(state.effectOutcomes).filter((o) => o.rollbackId === state.activeRollbackId && o.status === 'failed').length;

  const session: Row = {
    tenant_id: tenantId,
    session_id: sessionId,
    title: state.title,
    status: state.status,
    head: state.head,
    version: state.version,
    message_count: messageCount,
    tool_call_count: events.filter((e) => e.type === 'ToolCallStarted').length,
    branch_count: timelineView(state.timeline, state.head).branches.length,
    failed_effects: failedEffects,
    created_at: first.metadata.occurredAt,
    last_activity_at: last.metadata.occurredAt,
    last_position: last.globalPosition,
  };

  const nodes: Row[] = [];
  state.timeline.forEach((parent, index) => {
    if (parent < 0) return;
    const version = index + 1;
    nodes.push({ version, parent_version: parent === 0 ? null : parent, type: events[index]!.type, on_head_path: onPath.has(version) });
  });

  const headMessages: Row[] = state.path.turns
    .flatMap((turn) =>
      turn.messages.map((m) => ({ version: m.version, turn_id: turn.turnId, message_id: m.messageId, role: m.role, content: m.content, partial: m.partial })),
    )
    .sort((a, b) => a.version - b.version);

  // The call a result refers to is the one on the path when the result was recorded (evolve's rule).
  const results = new Map<number, { status: string; finished_version: number }>();
  events.forEach((e, index) => {
    if (e.type !== 'ToolCallSucceeded' && e.type !== 'ToolCallFailed') return;
    const before = replay(events, index);
    const call = before.path.toolCalls[(e.data as { toolCallId: string }).toolCallId];
    if (call) results.set(call.startedVersion, { status: e.type === 'ToolCallSucceeded' ? 'succeeded' : 'failed', finished_version: e.streamVersion });
  });
  const ledger: Row[] = events
    .filter((e) => e.type === 'ToolCallStarted')
    .map((e) => {
      const outcome = state.effectOutcomes[e.streamVersion];
      const result = results.get(e.streamVersion);
      const data = e.data as { toolCallId: string; tool: string; effect: { kind: string } };
      return {
        started_version: e.streamVersion,
        tool_call_id: data.toolCallId,
        tool: data.tool,
        effect_kind: data.effect.kind,
        status: result?.status ?? 'started',
        finished_version: result?.finished_version ?? null,
        compensation_status: outcome?.status ?? null,
        compensation_attempts: outcome?.attempts ?? 0,
        rollback_id: outcome?.rollbackId ?? null,
      };
    });

  // Per rollback, what became of each effect it dealt with (an effect skipped again by a later
  // rollback still counts for the first: the rollback record tells what that rollback did).
  const perRollback = new Map<string, Map<number, string>>();
  const OUTCOME: Record<string, string> = {
    CompensationApplied: 'compensated',
    CompensationFailed: 'failed',
    CompensationSkipped: 'skipped',
    CompensationRetryRequested: 'pending',
    CompensationResolved: 'resolved',
  };
  for (const e of events) {
    const status = OUTCOME[e.type];
    if (!status) continue;
    const data = e.data as { rollbackId: string; startedVersion: number };
    let effects = perRollback.get(data.rollbackId);
    if (!effects) perRollback.set(data.rollbackId, (effects = new Map()));
    effects.set(data.startedVersion, status);
  }
  const rollbacks: Row[] = Object.values(state.rollbacks)
    .map((r) => {
      const outcomes = [...(perRollback.get(r.rollbackId)?.values() ?? [])];
      const count = (status: string) => outcomes.filter((o) => o === status).length;
      return {
        rollback_id: r.rollbackId,
        kind: r.kind,
        from_version: r.fromVersion,
        to_version: r.toVersion,
        status: r.status,
        requested_by: r.requestedBy,
        requested_version: r.requestedVersion,
        completed_version: r.completedVersion,
        planned_effects: r.plan.length,
        to_compensate: r.plan.filter((i) => i.action === 'compensate').length,
        compensated_count: count('compensated'),
        skipped_count: count('skipped'),
        failed_count: count('failed'),
        resolved_count: count('resolved'),
      };
    })
    .sort((a, b) => (a.rollback_id < b.rollback_id ? -1 : 1));

  return { session, nodes, headMessages, ledger, rollbacks };
}
