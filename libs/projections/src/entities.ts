import { Column, Entity, Index, PrimaryColumn, type ValueTransformer } from 'typeorm';

/**
 * TypeORM entities of the read models (the query side). The tables are created by the
 * migrations; the projection writers fill them in batches (see `schema.ts`).
 */

/** Global positions are bigint on PostgreSQL (the driver gives strings) and below 2^53: numbers here. */
const asNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
/** SQLite stores booleans as 0/1. */
const asBoolean: ValueTransformer = {
  to: (value: boolean | null | undefined) => value,
  from: (value: boolean | number | null) => (value === null || value === undefined ? value : Boolean(value)),
};

@Entity({ name: 'projection_checkpoints' })
export class ProjectionCheckpointEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_projection_checkpoints' })
  name!: string;

  @Column({ type: 'bigint', transformer: asNumber })
  position!: number;

  @Column({ name: 'updated_at', type: 'text' })
  updatedAt!: string;

  /** Set by a verifying rebuild: the runner applies nothing until then (a lease). */
  @Column({ name: 'paused_until', type: 'text', nullable: true })
  pausedUntil!: string | null;
}

@Entity({ name: 'sessions' })
@Index('idx_sessions_tenant_created', ['tenantId', 'createdAt', 'sessionId'])
@Index('idx_sessions_tenant_activity', ['tenantId', 'lastActivityAt', 'sessionId'])
export class SessionEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text', primaryKeyConstraintName: 'pk_sessions' })
  tenantId!: string;

  @PrimaryColumn({ name: 'session_id', type: 'text', primaryKeyConstraintName: 'pk_sessions' })
  sessionId!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  /** `active`, `rolling_back` or `needs_attention`. */
  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'integer' })
  head!: number;

  @Column({ type: 'integer' })
  version!: number;

  /** Messages recorded in the session, on every branch. */
  @Column({ name: 'message_count', type: 'integer' })
  messageCount!: number;

  /** Tool calls started in the session, on every branch. */
  @Column({ name: 'tool_call_count', type: 'integer' })
  toolCallCount!: number;

  /** Leaves of the timeline DAG. */
  @Column({ name: 'branch_count', type: 'integer' })
  branchCount!: number;

  @Column({ name: 'head_is_leaf', type: 'boolean', transformer: asBoolean })
  headIsLeaf!: boolean;

  /** Effects whose compensation failed in the rollback in progress. */
  @Column({ name: 'failed_effects', type: 'integer' })
  failedEffects!: number;

  @Column({ name: 'created_at', type: 'text' })
  createdAt!: string;

  @Column({ name: 'last_activity_at', type: 'text' })
  lastActivityAt!: string;

  @Column({ name: 'last_position', type: 'bigint', transformer: asNumber })
  lastPosition!: number;
}

@Entity({ name: 'timeline_nodes' })
export class TimelineNodeEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text', primaryKeyConstraintName: 'pk_timeline_nodes' })
  tenantId!: string;

  @PrimaryColumn({ name: 'session_id', type: 'text', primaryKeyConstraintName: 'pk_timeline_nodes' })
  sessionId!: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'pk_timeline_nodes' })
  version!: number;

  @Column({ name: 'parent_version', type: 'integer', nullable: true })
  parentVersion!: number | null;

  @Column({ type: 'text' })
  type!: string;

  @Column({ name: 'occurred_at', type: 'text' })
  occurredAt!: string;

  @Column({ name: 'global_position', type: 'bigint', transformer: asNumber })
  globalPosition!: number;

  @Column({ name: 'on_head_path', type: 'boolean', transformer: asBoolean })
  onHeadPath!: boolean;

  @Column({ name: 'turn_id', type: 'text', nullable: true })
  turnId!: string | null;

  @Column({ name: 'message_id', type: 'text', nullable: true })
  messageId!: string | null;

  @Column({ type: 'text', nullable: true })
  role!: string | null;

  @Column({ type: 'text', nullable: true })
  content!: string | null;

  @Column({ type: 'boolean', nullable: true, transformer: asBoolean })
  partial!: boolean | null;
}

@Entity({ name: 'head_messages' })
export class HeadMessageEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text', primaryKeyConstraintName: 'pk_head_messages' })
  tenantId!: string;

  @PrimaryColumn({ name: 'session_id', type: 'text', primaryKeyConstraintName: 'pk_head_messages' })
  sessionId!: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'pk_head_messages' })
  version!: number;

  @Column({ name: 'turn_id', type: 'text' })
  turnId!: string;

  @Column({ name: 'message_id', type: 'text' })
  messageId!: string;

  @Column({ type: 'text' })
  role!: string;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'boolean', transformer: asBoolean })
  partial!: boolean;

  @Column({ name: 'occurred_at', type: 'text' })
  occurredAt!: string;
}

@Entity({ name: 'tool_call_ledger' })
export class ToolCallLedgerEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text', primaryKeyConstraintName: 'pk_tool_call_ledger' })
  tenantId!: string;

  @PrimaryColumn({ name: 'session_id', type: 'text', primaryKeyConstraintName: 'pk_tool_call_ledger' })
  sessionId!: string;

  @PrimaryColumn({ name: 'started_version', type: 'integer', primaryKeyConstraintName: 'pk_tool_call_ledger' })
  startedVersion!: number;

  @Column({ name: 'tool_call_id', type: 'text' })
  toolCallId!: string;

  @Column({ type: 'text' })
  tool!: string;

  @Column({ name: 'turn_id', type: 'text', nullable: true })
  turnId!: string | null;

  /** `started`, `succeeded` or `failed`. */
  @Column({ type: 'text' })
  status!: string;

  /** `none`, `reversible`, `compensable` or `irreversible`. */
  @Column({ name: 'effect_kind', type: 'text' })
  effectKind!: string;

  @Column({ type: 'boolean', transformer: asBoolean })
  confirmed!: boolean;

  @Column({ name: 'finished_version', type: 'integer', nullable: true })
  finishedVersion!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** null (never part of a rollback), `pending`, `compensated`, `skipped`, `failed` or `resolved`. */
  @Column({ name: 'compensation_status', type: 'text', nullable: true })
  compensationStatus!: string | null;

  @Column({ name: 'compensation_attempts', type: 'integer' })
  compensationAttempts!: number;

  @Column({ name: 'rollback_id', type: 'text', nullable: true })
  rollbackId!: string | null;

  /** The last error, the reason for a skip, or the note of a manual resolution. */
  @Column({ name: 'compensation_detail', type: 'text', nullable: true })
  compensationDetail!: string | null;

  @Column({ name: 'started_at', type: 'text' })
  startedAt!: string;

  @Column({ name: 'updated_at', type: 'text' })
  updatedAt!: string;

  @Column({ name: 'last_position', type: 'bigint', transformer: asNumber })
  lastPosition!: number;
}

@Entity({ name: 'rollbacks' })
@Index('idx_rollbacks_tenant_session', ['tenantId', 'sessionId'])
export class RollbackEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text', primaryKeyConstraintName: 'pk_rollbacks' })
  tenantId!: string;

  @PrimaryColumn({ name: 'rollback_id', type: 'text', primaryKeyConstraintName: 'pk_rollbacks' })
  rollbackId!: string;

  @Column({ name: 'session_id', type: 'text' })
  sessionId!: string;

  @Column({ type: 'text' })
  kind!: string;

  @Column({ name: 'from_version', type: 'integer' })
  fromVersion!: number;

  @Column({ name: 'to_version', type: 'integer' })
  toVersion!: number;

  /** `in_progress`, `needs_attention` or `completed`. */
  @Column({ type: 'text' })
  status!: string;

  @Column({ name: 'acknowledge_irreversible', type: 'boolean', transformer: asBoolean })
  acknowledgeIrreversible!: boolean;

  @Column({ name: 'requested_by', type: 'text' })
  requestedBy!: string;

  @Column({ name: 'requested_at', type: 'text' })
  requestedAt!: string;

  @Column({ name: 'requested_version', type: 'integer' })
  requestedVersion!: number;

  @Column({ name: 'completed_version', type: 'integer', nullable: true })
  completedVersion!: number | null;

  @Column({ name: 'completed_at', type: 'text', nullable: true })
  completedAt!: string | null;

  @Column({ name: 'planned_effects', type: 'integer' })
  plannedEffects!: number;

  @Column({ name: 'to_compensate', type: 'integer' })
  toCompensate!: number;

  @Column({ name: 'compensated_count', type: 'integer' })
  compensatedCount!: number;

  @Column({ name: 'skipped_count', type: 'integer' })
  skippedCount!: number;

  /** Effects whose compensation is failed right now (a retry or a resolution takes them out). */
  @Column({ name: 'failed_count', type: 'integer' })
  failedCount!: number;

  @Column({ name: 'resolved_count', type: 'integer' })
  resolvedCount!: number;

  @Column({ name: 'last_position', type: 'bigint', transformer: asNumber })
  lastPosition!: number;
}

@Entity({ name: 'audit_log' })
@Index('idx_audit_log_tenant_position', ['tenantId', 'globalPosition'])
@Index('idx_audit_log_tenant_session', ['tenantId', 'sessionId', 'globalPosition'])
export class AuditLogEntity {
  @PrimaryColumn({ name: 'global_position', type: 'bigint', transformer: asNumber, primaryKeyConstraintName: 'pk_audit_log' })
  globalPosition!: number;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  /** null for streams that are not sessions (e.g. the tool registry). */
  @Column({ name: 'session_id', type: 'text', nullable: true })
  sessionId!: string | null;

  @Column({ name: 'stream_id', type: 'text' })
  streamId!: string;

  @Column({ name: 'stream_version', type: 'integer' })
  streamVersion!: number;

  @Column({ name: 'event_id', type: 'text' })
  eventId!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'text' })
  actor!: string;

  @Column({ name: 'occurred_at', type: 'text' })
  occurredAt!: string;

  @Column({ name: 'command_id', type: 'text', nullable: true })
  commandId!: string | null;

  @Column({ name: 'correlation_id', type: 'text', nullable: true })
  correlationId!: string | null;

  @Column({ name: 'causation_id', type: 'text', nullable: true })
  causationId!: string | null;
}

export const READ_MODEL_ENTITIES = [
  ProjectionCheckpointEntity,
  SessionEntity,
  TimelineNodeEntity,
  HeadMessageEntity,
  ToolCallLedgerEntity,
  RollbackEntity,
  AuditLogEntity,
];
