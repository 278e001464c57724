/**
 * The read-model tables as the projection writers see them: column order and kinds (for
 * batch inserts), primary keys (for upserts and comparisons). The tables themselves are
 * created by the TypeORM migrations in `migrations/`; a test proves that the two agree on
 * SQLite and on PostgreSQL.
 *
 * Timestamps are ISO-8601 UTC text (`2026-11-22T10:00:00.000Z`) on both databases: they sort
 * as text, compare exactly in a verification, and are what the events carry.
 */

export type ColumnKind = 'text' | 'int' | 'bigint' | 'bool';

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  nullable?: boolean;
}

export interface TableSpec {
  name: string;
  columns: readonly ColumnSpec[];
  primaryKey: readonly string[];
}

const text = (name: string, nullable = false): ColumnSpec => ({ name, kind: 'text', nullable });
const int = (name: string, nullable = false): ColumnSpec => ({ name, kind: 'int', nullable });
const bigint = (name: string, nullable = false): ColumnSpec => ({ name, kind: 'bigint', nullable });
const bool = (name: string, nullable = false): ColumnSpec => ({ name, kind: 'bool', nullable });

export const CHECKPOINTS_TABLE = 'projection_checkpoints';

export const SESSIONS: TableSpec = {
  name: 'sessions',
  columns: [
    text('tenant_id'),
    text('session_id'),
    text('title', true),
    text('status'),
    int('head'),
    int('version'),
    int('message_count'),
    int('tool_call_count'),
    int('branch_count'),
    bool('head_is_leaf'),
    int('failed_effects'),
    text('created_at'),
    text('last_activity_at'),
    bigint('last_position'),
  ],
  primaryKey: ['tenant_id', 'session_id'],
};

export const TIMELINE_NODES: TableSpec = {
  name: 'timeline_nodes',
  columns: [
    text('tenant_id'),
    text('session_id'),
    int('version'),
    int('parent_version', true),
    text('type'),
    text('occurred_at'),
    bigint('global_position'),
    bool('on_head_path'),
    text('turn_id', true),
    text('message_id', true),
    text('role', true),
    text('content', true),
    bool('partial', true),
  ],
  primaryKey: ['tenant_id', 'session_id', 'version'],
};

export const HEAD_MESSAGES: TableSpec = {
  name: 'head_messages',
  columns: [
    text('tenant_id'),
    text('session_id'),
    int('version'),
    text('turn_id'),
    text('message_id'),
    text('role'),
    text('content'),
    bool('partial'),
    text('occurred_at'),
  ],
  primaryKey: ['tenant_id', 'session_id', 'version'],
};

export const TOOL_CALL_LEDGER: TableSpec = {
  name: 'tool_call_ledger',
  columns: [
    text('tenant_id'),
    text('session_id'),
    int('started_version'),
    text('tool_call_id'),
    text('tool'),
    text('turn_id', true),
    text('status'),
    text('effect_kind'),
    bool('confirmed'),
    int('finished_version', true),
    text('error', true),
    text('compensation_status', true),
    int('compensation_attempts'),
    text('rollback_id', true),
    text('compensation_detail', true),
    text('started_at'),
    text('updated_at'),
    bigint('last_position'),
  ],
  primaryKey: ['tenant_id', 'session_id', 'started_version'],
};

export const ROLLBACKS: TableSpec = {
  name: 'rollbacks',
  columns: [
    text('tenant_id'),
    text('rollback_id'),
    text('session_id'),
    text('kind'),
    int('from_version'),
    int('to_version'),
    text('status'),
    bool('acknowledge_irreversible'),
    text('requested_by'),
    text('requested_at'),
    int('requested_version'),
    int('completed_version', true),
    text('completed_at', true),
    int('planned_effects'),
    int('to_compensate'),
    int('compensated_count'),
    int('skipped_count'),
    int('failed_count'),
    int('resolved_count'),
    bigint('last_position'),
  ],
  primaryKey: ['tenant_id', 'rollback_id'],
};

export const AUDIT_LOG: TableSpec = {
  name: 'audit_log',
  columns: [
    bigint('global_position'),
    text('tenant_id'),
    text('session_id', true),
    text('stream_id'),
    int('stream_version'),
    text('event_id'),
    text('type'),
    text('actor'),
    text('occurred_at'),
    text('command_id', true),
    text('correlation_id', true),
    text('causation_id', true),
  ],
  primaryKey: ['global_position'],
};

export const READ_MODEL_TABLES: readonly TableSpec[] = [SESSIONS, TIMELINE_NODES, HEAD_MESSAGES, TOOL_CALL_LEDGER, ROLLBACKS, AUDIT_LOG];

export type Row = Record<string, unknown>;

/** A row's primary key as one string (for maps and reports). */
export function keyOf(table: TableSpec, row: Row): string {
  return table.primaryKey.map((column) => String(row[column])).join('\u0000');
}
