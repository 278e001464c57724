import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Audit pages continue after the tenant's own event id instead of a position in the whole log
 * (which let a tenant count other tenants' writes): the next page finds that event's place here.
 */
export class AuditCursorByEvent1764201600000 implements MigrationInterface {
  name = 'AuditCursorByEvent1764201600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('audit_log', new TableIndex({ name: 'idx_audit_log_tenant_event', columnNames: ['tenant_id', 'event_id'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('audit_log', 'idx_audit_log_tenant_event');
  }
}
