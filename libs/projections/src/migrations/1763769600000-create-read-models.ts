import { Table, TableIndex, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';

/**
 * The first read models: sessions, timeline nodes, head messages, the tool-call ledger,
 * rollbacks, the audit log, and the projection checkpoints. Portable: the same migration runs
 * on SQLite (better-sqlite3) and on PostgreSQL; where the two differ it asks which one it is.
 *
 * A migration is frozen once released: later changes are new migrations.
 */
export class CreateReadModels1763769600000 implements MigrationInterface {
  name = 'CreateReadModels1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    // A global position: PostgreSQL's are derived from transaction ids (up to 2^53). On SQLite
    // "integer" makes audit_log's primary key the rowid (no second b-tree); it holds 64 bits.
    const position = postgres ? 'bigint' : 'integer';
    const text = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'text', isNullable: nullable });
    const int = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'integer', isNullable: nullable });
    const pos = (name: string): TableColumnOptions => ({ name, type: position, isNullable: false });
    const bool = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'boolean', isNullable: nullable });
    const pk = (column: TableColumnOptions, constraint: string): TableColumnOptions => ({ ...column, isPrimary: true, primaryKeyConstraintName: constraint });

    await queryRunner.createTable(
      new Table({
        name: 'projection_checkpoints',
        // paused_until: a rebuild that verifies pauses the live runner while it compares (a lease: it ends by itself).
        columns: [pk(text('name'), 'pk_projection_checkpoints'), pos('position'), text('updated_at'), text('paused_until', true)],
      }),
    );
    for (const name of ['sessions', 'ledger', 'audit']) {
      await queryRunner.query(
        postgres
          ? `INSERT INTO ${queryRunner.connection.driver.escape(this.schemaOf(queryRunner))}."projection_checkpoints" (name, position, updated_at) VALUES ($1, 0, $2)`
          : `INSERT INTO "projection_checkpoints" (name, position, updated_at) VALUES (?, 0, ?)`,
        [name, new Date().toISOString()],
      );
    }

    await queryRunner.createTable(
      new Table({
        name: 'sessions',
        columns: [
          pk(text('tenant_id'), 'pk_sessions'),
          pk(text('session_id'), 'pk_sessions'),
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
          pos('last_position'),
        ],
        indices: [
          new TableIndex({ name: 'idx_sessions_tenant_created', columnNames: ['tenant_id', 'created_at', 'session_id'] }),
          new TableIndex({ name: 'idx_sessions_tenant_activity', columnNames: ['tenant_id', 'last_activity_at', 'session_id'] }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'timeline_nodes',
        columns: [
          pk(text('tenant_id'), 'pk_timeline_nodes'),
          pk(text('session_id'), 'pk_timeline_nodes'),
          pk(int('version'), 'pk_timeline_nodes'),
          int('parent_version', true),
          text('type'),
          text('occurred_at'),
          pos('global_position'),
          bool('on_head_path'),
          text('turn_id', true),
          text('message_id', true),
          text('role', true),
          text('content', true),
          bool('partial', true),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'head_messages',
        columns: [
          pk(text('tenant_id'), 'pk_head_messages'),
          pk(text('session_id'), 'pk_head_messages'),
          pk(int('version'), 'pk_head_messages'),
          text('turn_id'),
          text('message_id'),
          text('role'),
          text('content'),
          bool('partial'),
          text('occurred_at'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'tool_call_ledger',
        columns: [
          pk(text('tenant_id'), 'pk_tool_call_ledger'),
          pk(text('session_id'), 'pk_tool_call_ledger'),
          pk(int('started_version'), 'pk_tool_call_ledger'),
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
          pos('last_position'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'rollbacks',
        columns: [
          pk(text('tenant_id'), 'pk_rollbacks'),
          pk(text('rollback_id'), 'pk_rollbacks'),
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
          pos('last_position'),
        ],
        indices: [new TableIndex({ name: 'idx_rollbacks_tenant_session', columnNames: ['tenant_id', 'session_id'] })],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'audit_log',
        columns: [
          pk(pos('global_position'), 'pk_audit_log'),
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
        indices: [
          new TableIndex({ name: 'idx_audit_log_tenant_position', columnNames: ['tenant_id', 'global_position'] }),
          new TableIndex({ name: 'idx_audit_log_tenant_session', columnNames: ['tenant_id', 'session_id', 'global_position'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['audit_log', 'rollbacks', 'tool_call_ledger', 'head_messages', 'timeline_nodes', 'sessions', 'projection_checkpoints']) {
      await queryRunner.dropTable(table, true);
    }
  }

  private schemaOf(queryRunner: QueryRunner): string {
    return (queryRunner.connection.options as { schema?: string }).schema ?? 'public';
  }
}
