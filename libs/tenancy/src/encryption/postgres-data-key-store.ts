import type { Pool } from 'pg';
import { applyMigrationsInPool } from '@rewind/event-store/postgres';
import type { DataKeyStore, ShreddedKey, StoredDataKey } from './data-key-store';
import { dataKeyMigrations } from './postgres-data-key-migrations';
import { policiesFrom, type EncryptionPolicies, type EncryptionPolicyStore } from './encryption-policy';
import type { RetentionPolicy, RetentionPolicyStore } from './retention-policy';

interface Row {
  key_id: string;
  tenant_id: string;
  session_id: string;
  wrapped: string | null;
  created_at: Date;
  shredded_at: Date | null;
  shredded_by: string | null;
}
const toKey = (r: Row): StoredDataKey => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  sessionId: r.session_id,
  wrapped: r.wrapped,
  createdAt: r.created_at.toISOString(),
  shreddedAt: r.shredded_at ? r.shredded_at.toISOString() : null,
  shreddedBy: r.shredded_by,
});

/**
 * Data keys in PostgreSQL (the event store's schema). A shred sets the wrapped key to NULL; the
 * old row version stays on disk until VACUUM reclaims it, and in WAL archives and backups (see
 * docs/operations/security.md) — the wrapped key is useless without the master key.
 */
export class PostgresDataKeyStore implements DataKeyStore, EncryptionPolicyStore, RetentionPolicyStore {
  private constructor(
    private readonly pool: Pool,
    private readonly table: string,
    private readonly policyTable: string,
    private readonly retentionTable: string,
  ) {}

  /** Migrates the tables (advisory-locked: safe with any number of processes opening at once). */
  static async open(pool: Pool, schema = 'rewind'): Promise<PostgresDataKeyStore> {
    await applyMigrationsInPool(pool, dataKeyMigrations(schema));
    return new PostgresDataKeyStore(pool, `"${schema}".data_keys`, `"${schema}".encryption_policies`, `"${schema}".retention_policies`);
  }

  async retentionPolicies(): Promise<RetentionPolicy[]> {
    const { rows } = await this.pool.query<{ tenant_id: string; inactive_days: number }>(
      `SELECT tenant_id, inactive_days FROM ${this.retentionTable} ORDER BY tenant_id`,
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, inactiveDays: r.inactive_days }));
  }

  async setRetention(tenantId: string, inactiveDays: number | null) {
    if (inactiveDays === null) await this.pool.query(`DELETE FROM ${this.retentionTable} WHERE tenant_id = $1`, [tenantId]);
    else
      await this.pool.query(
        `INSERT INTO ${this.retentionTable} (tenant_id, inactive_days) VALUES ($1, $2) ON CONFLICT (tenant_id) DO UPDATE SET inactive_days = excluded.inactive_days`,
        [tenantId, inactiveDays],
      );
  }

  async policies(tenantId: string): Promise<EncryptionPolicies> {
    const { rows } = await this.pool.query<{ kind: 'tool' | 'memory'; name: string; paths: string }>(
      `SELECT kind, name, paths FROM ${this.policyTable} WHERE tenant_id = $1`,
      [tenantId],
    );
    return policiesFrom(rows);
  }

  async setTool(tenantId: string, tool: string, paths: { input: string[]; output: string[] }) {
    if (paths.input.length + paths.output.length === 0) {
      await this.pool.query(`DELETE FROM ${this.policyTable} WHERE tenant_id = $1 AND kind = 'tool' AND name = $2`, [tenantId, tool]);
      return;
    }
    await this.pool.query(
      `INSERT INTO ${this.policyTable} (tenant_id, kind, name, paths) VALUES ($1, 'tool', $2, $3) ON CONFLICT (tenant_id, kind, name) DO UPDATE SET paths = excluded.paths`,
      [tenantId, tool, JSON.stringify(paths)],
    );
  }

  async setMemoryKey(tenantId: string, key: string, encrypted: boolean) {
    await this.pool.query(
      encrypted
        ? `INSERT INTO ${this.policyTable} (tenant_id, kind, name, paths) VALUES ($1, 'memory', $2, '[]') ON CONFLICT DO NOTHING`
        : `DELETE FROM ${this.policyTable} WHERE tenant_id = $1 AND kind = 'memory' AND name = $2`,
      [tenantId, key],
    );
  }

  async byId(keyId: string) {
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE key_id = $1`, [keyId]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async forSession(tenantId: string, sessionId: string) {
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE tenant_id = $1 AND session_id = $2`, [tenantId, sessionId]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async create(key: Omit<StoredDataKey, 'shreddedAt' | 'shreddedBy' | 'createdAt'>) {
    await this.pool.query(
      `INSERT INTO ${this.table} (key_id, tenant_id, session_id, wrapped) VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, session_id) DO NOTHING`,
      [key.keyId, key.tenantId, key.sessionId, key.wrapped],
    );
    return (await this.forSession(key.tenantId, key.sessionId))!;
  }

  async shred(tenantId: string, sessionId: string | null, actor: string): Promise<ShreddedKey[]> {
    const { rows } = await this.pool.query<{ key_id: string; session_id: string }>(
      `UPDATE ${this.table} SET wrapped = NULL, shredded_at = now(), shredded_by = $3
       WHERE tenant_id = $1 AND ($2::text IS NULL OR session_id = $2) AND wrapped IS NOT NULL RETURNING key_id, session_id`,
      [tenantId, sessionId, actor],
    );
    return rows.map((r) => ({ keyId: r.key_id, sessionId: r.session_id }));
  }

  /** The pool belongs to the event store. */
  async close() {}
}
