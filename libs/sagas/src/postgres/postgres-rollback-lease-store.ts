import type { PostgresEventStore } from '@rewind/event-store/postgres';
import { distinctRollbacks, type RollbackLeaseStore, type RollbackRef } from '../leases/rollback-lease-store';
import { migrateSagas } from './migrations';
import { rollbackLeaseStatements } from './rollback-lease-statements';

type Pool = PostgresEventStore['pool'];

/**
 * Leases on unfinished rollbacks in PostgreSQL (`<schema>.rollback_leases`), shared by every
 * API process and worker on the database. Each call is one statement on a pooled connection
 * (no connection is held per lease or per process); expiry is by the database's clock.
 */
export class PostgresRollbackLeaseStore implements RollbackLeaseStore {
  private readonly sql;

  private constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.sql = rollbackLeaseStatements(`"${schema}"`);
  }

  /** Applies the sagas' migrations (safe with concurrent openers), then the store is ready. The pool stays the caller's. */
  static async open(pool: Pool, schema = 'rewind'): Promise<PostgresRollbackLeaseStore> {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`"${schema}" is not a valid schema name: use lower-case letters, digits and "_".`);
    await migrateSagas(pool, schema);
    return new PostgresRollbackLeaseStore(pool, schema);
  }

  async acquire(holder: string, rollbacks: readonly RollbackRef[], ttlMs: number): Promise<RollbackRef[]> {
    return this.each(this.sql.acquire, holder, rollbacks, ttlMs);
  }

  async renew(holder: string, rollbacks: readonly RollbackRef[], ttlMs: number): Promise<RollbackRef[]> {
    return this.each(this.sql.renew, holder, rollbacks, ttlMs);
  }

  async release(holder: string, rollbacks: readonly RollbackRef[]): Promise<void> {
    if (rollbacks.length === 0) return;
    const refs = distinctRollbacks(rollbacks);
    await this.pool.query(this.sql.release, [refs.map((r) => r.tenantId), refs.map((r) => r.rollbackId), holder]);
  }

  private async each(statement: string, holder: string, rollbacks: readonly RollbackRef[], ttlMs: number): Promise<RollbackRef[]> {
    if (rollbacks.length === 0) return [];
    const refs = distinctRollbacks(rollbacks);
    const { rows } = await this.pool.query<{ tenant_id: string; rollback_id: string }>(statement, [
      refs.map((r) => r.tenantId),
      refs.map((r) => r.rollbackId),
      holder,
      Math.max(1, Math.round(ttlMs)),
    ]);
    return rows.map((row) => ({ tenantId: row.tenant_id, rollbackId: row.rollback_id }));
  }
}
