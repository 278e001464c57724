/**
 * The read-model tables, defined once: columns (order, kinds, nullability), primary keys and
 * secondary indexes. The rest is derived from or checked against these definitions: the
 * TypeORM entities of the query side are built from them (`entities.ts`); the projection
 * writers' SQL is generated from them (`sql.ts`); the TypeORM migrations in `migrations/` (frozen
 * text) must create exactly these tables, which a test proves on SQLite and on PostgreSQL.
 * A change to a table is a change here plus a new migration.
 *
 * Timestamps are ISO-8601 UTC text (`2026-11-22T10:00:00.000Z`) on both databases: they sort
 * as text, compare exactly in a verification, and are what the events carry.
 */

/**
 * `bigint` holds global positions (up to 2^53): `bigint` on PostgreSQL, `integer` on SQLite
 * (64 bits there, and an `integer` primary key is the rowid).
 */
export type ColumnKind = 'text' | 'int' | 'bigint' | 'bool';

/** How the migrations declare each kind of column, per database. */
export const DECLARED_TYPES: Record<'sqlite' | 'postgres', Record<ColumnKind, string>> = {
  postgres: { text: 'text', int: 'integer', bigint: 'bigint', bool: 'boolean' },
  sqlite: { text: 'text', int: 'integer', bigint: 'integer', bool: 'boolean' },
};

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  nullable?: boolean;
}

export interface IndexSpec {
  name: string;
  columns: readonly string[];
}

export interface TableSpec {
  name: string;
  columns: readonly ColumnSpec[];
  primaryKey: readonly string[];
  /** Secondary indexes (not unique). */
  indexes?: readonly IndexSpec[];
}

/** The name of a table's primary-key constraint. */
export const primaryKeyName = (table: TableSpec): string => `pk_${table.name}`;

const column =
  <K extends ColumnKind>(kind: K) =>
  <N extends string, O extends boolean = false>(name: N, nullable?: O): { name: N; kind: K; nullable: O } => ({
    name,
    kind,
    nullable: (nullable ?? false) as O,
  });
const text = column('text');
const int = column('int');
const bigint = column('bigint');
const bool = column('bool');
/** Keeps the literal column names and kinds in the type (for the entities' row types). */
const defineTable = <const T extends TableSpec>(spec: T): T => spec;

/** Where each projection is in the log (and each rebuild's shadow tables, as `<name>__rebuild`). */
export const CHECKPOINTS = defineTable({
  name: 'projection_checkpoints',
  columns: [
    text('name'),
    bigint('position'),
    text('updated_at'),
    /** Set by a verifying rebuild: the runner applies nothing until then (a lease). */
    text('paused_until', true),
  ],
  primaryKey: ['name'],
});

export const CHECKPOINTS_TABLE = CHECKPOINTS.name;

export const SESSIONS = defineTable({
  name: 'sessions',
  columns: [
    text('tenant_id'),
    text('session_id'),
    text('title', true),
    /** `active`, `rolling_back` or `needs_attention`. */
    text('status'),
    int('head'),
    int('version'),
    /** Messages recorded in the session, on every branch. */
    int('message_count'),
    /** Tool calls started in the session, on every branch. */
    int('tool_call_count'),
    /** Leaves of the timeline DAG. */
    int('branch_count'),
    bool('head_is_leaf'),
    /** Effects whose compensation failed in the rollback in progress. */
    int('failed_effects'),
    text('created_at'),
    text('last_activity_at'),
    bigint('last_position'),
  ],
  primaryKey: ['tenant_id', 'session_id'],
  indexes: [
    { name: 'idx_sessions_tenant_created', columns: ['tenant_id', 'created_at', 'session_id'] },
    { name: 'idx_sessions_tenant_activity', columns: ['tenant_id', 'last_activity_at', 'session_id'] },
  ],
});

export const TIMELINE_NODES = defineTable({
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
});

export const HEAD_MESSAGES = defineTable({
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
});

export const TOOL_CALL_LEDGER = defineTable({
  name: 'tool_call_ledger',
  columns: [
    text('tenant_id'),
    text('session_id'),
    int('started_version'),
    text('tool_call_id'),
    text('tool'),
    text('turn_id', true),
    /** `started`, `succeeded` or `failed`. */
    text('status'),
    /** `none`, `reversible`, `compensable` or `irreversible`. */
    text('effect_kind'),
    bool('confirmed'),
    int('finished_version', true),
    text('error', true),
    /** null (never part of a rollback), `pending`, `compensated`, `skipped`, `failed` or `resolved`. */
    text('compensation_status', true),
    int('compensation_attempts'),
    text('rollback_id', true),
    /** The last error, the reason for a skip, or the note of a manual resolution. */
    text('compensation_detail', true),
    text('started_at'),
    text('updated_at'),
    bigint('last_position'),
  ],
  primaryKey: ['tenant_id', 'session_id', 'started_version'],
});

export const ROLLBACKS = defineTable({
  name: 'rollbacks',
  columns: [
    text('tenant_id'),
    text('rollback_id'),
    text('session_id'),
    text('kind'),
    int('from_version'),
    int('to_version'),
    /** `in_progress`, `needs_attention` or `completed`. */
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
    /** Effects whose compensation is failed right now (a retry or a resolution takes them out). */
    int('failed_count'),
    int('resolved_count'),
    bigint('last_position'),
  ],
  primaryKey: ['tenant_id', 'rollback_id'],
  indexes: [{ name: 'idx_rollbacks_tenant_session', columns: ['tenant_id', 'session_id'] }],
});

export const AUDIT_LOG = defineTable({
  name: 'audit_log',
  columns: [
    bigint('global_position'),
    text('tenant_id'),
    /** null for streams that are not sessions (e.g. the tool registry). */
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
  indexes: [
    { name: 'idx_audit_log_tenant_position', columns: ['tenant_id', 'global_position'] },
    { name: 'idx_audit_log_tenant_session', columns: ['tenant_id', 'session_id', 'global_position'] },
    /** An audit page's cursor is the tenant's event id: the next page looks up its place here. */
    { name: 'idx_audit_log_tenant_event', columns: ['tenant_id', 'event_id'] },
  ],
});

/** The tables the projections write (not the checkpoints). */
export const READ_MODEL_TABLES: readonly TableSpec[] = [SESSIONS, TIMELINE_NODES, HEAD_MESSAGES, TOOL_CALL_LEDGER, ROLLBACKS, AUDIT_LOG];

export type Row = Record<string, unknown>;

/** A row's primary key as one string (for maps and reports). */
export function keyOf(table: TableSpec, row: Row): string {
  return table.primaryKey.map((column) => String(row[column])).join('\u0000');
}
