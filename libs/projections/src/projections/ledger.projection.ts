import { arrayField, boolField, intField, objectField, optionalTextField, textField, type ProjectedEvent } from '../projected-event';
import { keyOf, ROLLBACKS, TOOL_CALL_LEDGER, type Row, type TableSpec } from '../schema';
import type { Dialect, Step, TableVariant } from '../sql';
import { sessionKey, type Projection } from './projection';

interface LedgerRow {
  tenant_id: string;
  session_id: string;
  started_version: number;
  tool_call_id: string;
  tool: string;
  turn_id: string | null;
  status: string;
  effect_kind: string;
  confirmed: boolean;
  finished_version: number | null;
  error: string | null;
  compensation_status: string | null;
  compensation_attempts: number;
  rollback_id: string | null;
  compensation_detail: string | null;
  started_at: string;
  updated_at: string;
  last_position: number;
}

interface RollbackRow {
  tenant_id: string;
  rollback_id: string;
  session_id: string;
  kind: string;
  from_version: number;
  to_version: number;
  status: string;
  acknowledge_irreversible: boolean;
  requested_by: string;
  requested_at: string;
  requested_version: number;
  completed_version: number | null;
  completed_at: string | null;
  planned_effects: number;
  to_compensate: number;
  compensated_count: number;
  skipped_count: number;
  failed_count: number;
  resolved_count: number;
  last_position: number;
}

const COMPENSATION_EVENTS = new Set([
  'CompensationApplied',
  'CompensationFailed',
  'CompensationSkipped',
  'CompensationAttemptFailed',
  'CompensationRetryRequested',
  'CompensationResolved',
]);

/** Longest text kept from a compensator's error, a skip reason or a note. */
const DETAIL_LIMIT = 2000;
const detail = (text: string | null) => (text === null ? null : text.length > DETAIL_LIMIT ? `${text.slice(0, DETAIL_LIMIT - 1)}…` : text);

/** The newest start of each (tenant, session, toolCallId): the call a result refers to. */
function* latestCalls(d: Dialect, variant: TableVariant, keys: readonly [string, string, string][]): Step<Row[]> {
  return yield* d.select(TOOL_CALL_LEDGER, ['tenant_id', 'session_id', 'tool_call_id'], keys, {
    variant,
    orderBy: { column: 'started_version', descending: true },
    limit: 1,
  });
}

/**
 * `tool_call_ledger` (one row per tool call start, with its effect kind, result and
 * compensation outcome) and `rollbacks` (one row per head move with its counts of effects
 * compensated, skipped, failed and resolved). Fed by ToolCall*, RollbackRequested,
 * Compensation* and RollbackCompleted events; the counts mirror `evolve`'s outcomes.
 */
export const ledgerProjection: Projection = {
  name: 'ledger',
  description: 'the tool-call ledger and rollbacks (effects and their compensation)',
  tables: [TOOL_CALL_LEDGER, ROLLBACKS],

  *apply(d: Dialect, events: readonly ProjectedEvent[], variant: TableVariant, options: { bulk?: boolean } = {}): Step<void> {
    const relevant = events.filter(
      (e) => e.sessionId !== null && (e.type.startsWith('ToolCall') || e.type.startsWith('Rollback') || COMPENSATION_EVENTS.has(e.type)),
    );
    if (relevant.length === 0) return;

    // Plan the loads: rows that this batch refers to but did not create.
    const startKey = (e: ProjectedEvent, version: number) => `${sessionKey(e.tenantId, e.sessionId!)}\u0000${version}`;
    const callKey = (e: ProjectedEvent, callId: string) => `${sessionKey(e.tenantId, e.sessionId!)}\u0000${callId}`;
    const rollbackKey = (tenantId: string, rollbackId: string) => `${tenantId}\u0000${rollbackId}`;
    const createdStarts = new Set<string>();
    const createdCalls = new Set<string>();
    const createdRollbacks = new Set<string>();
    const needStarts = new Map<string, [string, string, number]>();
    const needCalls = new Map<string, [string, string, string]>();
    const needRollbacks = new Map<string, [string, string]>();
    for (const e of relevant) {
      const d0 = e.data;
      if (e.type === 'ToolCallStarted') {
        createdStarts.add(startKey(e, e.streamVersion));
        createdCalls.add(callKey(e, textField(d0, 'toolCallId')));
      } else if (e.type === 'ToolCallSucceeded' || e.type === 'ToolCallFailed') {
        const k = callKey(e, textField(d0, 'toolCallId'));
        if (!createdCalls.has(k)) needCalls.set(k, [e.tenantId, e.sessionId!, textField(d0, 'toolCallId')]);
      } else if (e.type === 'RollbackRequested') {
        createdRollbacks.add(rollbackKey(e.tenantId, textField(d0, 'rollbackId')));
        for (const item of arrayField(d0, 'plan')) {
          const k = startKey(e, intField(item, 'startedVersion'));
          if (!createdStarts.has(k)) needStarts.set(k, [e.tenantId, e.sessionId!, intField(item, 'startedVersion')]);
        }
      } else {
        const k = startKey(e, intField(d0, 'startedVersion'));
        if (COMPENSATION_EVENTS.has(e.type) && !createdStarts.has(k)) needStarts.set(k, [e.tenantId, e.sessionId!, intField(d0, 'startedVersion')]);
        const r = rollbackKey(e.tenantId, textField(d0, 'rollbackId'));
        if (!createdRollbacks.has(r)) needRollbacks.set(r, [e.tenantId, textField(d0, 'rollbackId')]);
      }
    }

    // One object per row (the identity map), whichever way it was found.
    const byStart = new Map<string, LedgerRow>();
    const byCall = new Map<string, LedgerRow>();
    const rollbacks = new Map<string, RollbackRow>();
    for (const row of yield* d.selectByKeys(TOOL_CALL_LEDGER, [...needStarts.values()], variant)) {
      byStart.set(keyOf(TOOL_CALL_LEDGER, row), row as unknown as LedgerRow);
    }
    for (const row of yield* latestCalls(d, variant, [...needCalls.values()])) {
      const k = keyOf(TOOL_CALL_LEDGER, row);
      const same = byStart.get(k) ?? (row as unknown as LedgerRow);
      byStart.set(k, same);
      byCall.set(`${sessionKey(same.tenant_id, same.session_id)}\u0000${same.tool_call_id}`, same);
    }
    for (const row of yield* d.selectByKeys(ROLLBACKS, [...needRollbacks.values()], variant)) {
      rollbacks.set(rollbackKey(row.tenant_id as string, row.rollback_id as string), row as unknown as RollbackRow);
    }

    const dirtyCalls = new Set<LedgerRow>();
    const dirtyRollbacks = new Set<RollbackRow>();
    /** Rows this batch creates: in a bulk fill (empty tables, each event applied once) they are plain inserts. */
    const fresh = new Set<LedgerRow | RollbackRow>();
    const touch = (row: LedgerRow, e: ProjectedEvent) => {
      row.updated_at = e.occurredAt;
      row.last_position = e.position;
      dirtyCalls.add(row);
    };
    const touchRollback = (row: RollbackRow, e: ProjectedEvent) => {
      row.last_position = e.position;
      dirtyRollbacks.add(row);
    };
    /** A rollback with no failed effect left goes back to work (as `evolve` reopens it). */
    const reopen = (rollback: RollbackRow) => {
      if (rollback.failed_count === 0 && rollback.status !== 'completed') rollback.status = 'in_progress';
    };

    for (const e of relevant) {
      const data = e.data;
      switch (e.type) {
        case 'ToolCallStarted': {
          const row: LedgerRow = {
            tenant_id: e.tenantId,
            session_id: e.sessionId!,
            started_version: e.streamVersion,
            tool_call_id: textField(data, 'toolCallId'),
            tool: textField(data, 'tool'),
            turn_id: optionalTextField(data, 'turnId'),
            status: 'started',
            effect_kind: textField(objectField(data, 'effect'), 'kind', 'none'),
            confirmed: boolField(data, 'confirmed'),
            finished_version: null,
            error: null,
            compensation_status: null,
            compensation_attempts: 0,
            rollback_id: null,
            compensation_detail: null,
            started_at: e.occurredAt,
            updated_at: e.occurredAt,
            last_position: e.position,
          };
          byStart.set(startKey(e, e.streamVersion), row);
          byCall.set(callKey(e, row.tool_call_id), row);
          dirtyCalls.add(row);
          fresh.add(row);
          break;
        }
        case 'ToolCallSucceeded':
        case 'ToolCallFailed': {
          const row = byCall.get(callKey(e, textField(data, 'toolCallId')));
          if (!row) break;
          row.status = e.type === 'ToolCallSucceeded' ? 'succeeded' : 'failed';
          row.finished_version = e.streamVersion;
          row.error = e.type === 'ToolCallFailed' ? detail(textField(data, 'error')) : null;
          touch(row, e);
          break;
        }
        case 'RollbackRequested': {
          const plan = arrayField(data, 'plan');
          const rollbackId = textField(data, 'rollbackId');
          const compensate = plan.filter((item) => item.action === 'compensate');
          const rollback: RollbackRow = {
            tenant_id: e.tenantId,
            rollback_id: rollbackId,
            session_id: e.sessionId!,
            kind: textField(data, 'kind'),
            from_version: intField(data, 'fromVersion'),
            to_version: intField(data, 'toVersion'),
            status: 'in_progress',
            acknowledge_irreversible: boolField(data, 'acknowledgeIrreversible'),
            requested_by: e.actor,
            requested_at: e.occurredAt,
            requested_version: e.streamVersion,
            completed_version: null,
            completed_at: null,
            planned_effects: plan.length,
            to_compensate: compensate.length,
            compensated_count: 0,
            skipped_count: 0,
            failed_count: 0,
            resolved_count: 0,
            last_position: e.position,
          };
          rollbacks.set(rollbackKey(e.tenantId, rollbackId), rollback);
          dirtyRollbacks.add(rollback);
          fresh.add(rollback);
          for (const item of compensate) {
            const row = byStart.get(startKey(e, intField(item, 'startedVersion')));
            if (!row) continue;
            Object.assign(row, { compensation_status: 'pending', compensation_attempts: 0, rollback_id: rollbackId, compensation_detail: null });
            touch(row, e);
          }
          break;
        }
        case 'RollbackCompleted': {
          const rollback = rollbacks.get(rollbackKey(e.tenantId, textField(data, 'rollbackId')));
          if (!rollback) break;
          Object.assign(rollback, { status: 'completed', completed_version: e.streamVersion, completed_at: e.occurredAt });
          touchRollback(rollback, e);
          break;
        }
        default: {
          if (!COMPENSATION_EVENTS.has(e.type)) break;
          const row = byStart.get(startKey(e, intField(data, 'startedVersion')));
          const rollback = rollbacks.get(rollbackKey(e.tenantId, textField(data, 'rollbackId')));
          const previous = row?.compensation_status ?? null;
          const wasFailed = row ? previous === 'failed' : true;
          switch (e.type) {
            case 'CompensationApplied':
              if (row) Object.assign(row, { compensation_status: 'compensated', compensation_attempts: intField(data, 'attempts'), compensation_detail: null });
              if (rollback) rollback.compensated_count += 1;
              break;
            case 'CompensationFailed':
              if (row)
                Object.assign(row, {
                  compensation_status: 'failed',
                  compensation_attempts: intField(data, 'attempts'),
                  compensation_detail: detail(textField(data, 'error')),
                });
              if (rollback) {
                rollback.failed_count += 1;
                rollback.status = 'needs_attention';
              }
              break;
            case 'CompensationSkipped':
              if (row) Object.assign(row, { compensation_status: 'skipped', compensation_detail: detail(textField(data, 'reason')) });
              if (rollback) rollback.skipped_count += 1;
              break;
            case 'CompensationAttemptFailed':
              if (row) Object.assign(row, { compensation_attempts: intField(data, 'attempt'), compensation_detail: detail(textField(data, 'error')) });
              break;
            case 'CompensationRetryRequested':
              if (row)
                Object.assign(row, { compensation_status: 'pending', compensation_detail: detail(`retry requested by ${textField(data, 'requestedBy')}`) });
              if (rollback) {
                if (wasFailed) rollback.failed_count = Math.max(0, rollback.failed_count - 1);
                reopen(rollback);
              }
              break;
            case 'CompensationResolved':
              if (row) Object.assign(row, { compensation_status: 'resolved', compensation_detail: detail(textField(data, 'note')) });
              if (rollback) {
                if (wasFailed) rollback.failed_count = Math.max(0, rollback.failed_count - 1);
                rollback.resolved_count += 1;
                reopen(rollback);
              }
              break;
          }
          if (row) {
            row.rollback_id = textField(data, 'rollbackId') || row.rollback_id;
            touch(row, e);
          }
          if (rollback) touchRollback(rollback, e);
        }
      }
    }

    const write = function* <R extends LedgerRow | RollbackRow>(table: TableSpec, rows: Set<R>): Step<void> {
      if (!options.bulk) {
        yield* d.insert(table, [...rows] as unknown as Row[], { variant, upsert: true });
        return;
      }
      const created = [...rows].filter((r) => fresh.has(r));
      yield* d.insert(table, created as unknown as Row[], { variant });
      if (created.length < rows.size) yield* d.insert(table, [...rows].filter((r) => !fresh.has(r)) as unknown as Row[], { variant, upsert: true });
    };
    yield* write(TOOL_CALL_LEDGER, dirtyCalls);
    yield* write(ROLLBACKS, dirtyRollbacks);
  },
};
