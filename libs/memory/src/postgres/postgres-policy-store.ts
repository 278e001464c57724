import type { Pool } from 'pg';
import type { MemoryPolicy, MemoryPolicyStore, PolicyKey } from '../memory-policy';
import { migrateMemory } from './migrations';

/**
 * Memory policies in PostgreSQL (the event store's schema, table `memory_policies`), so that
 * every API process and the worker of a distributed deployment read the same ones. '' stands
 * for "the whole tenant". The pool is the caller's (closing the store leaves it open).
 */
export class PostgresPolicyStore implements MemoryPolicyStore {
  private ready: Promise<void> | undefined;
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    private readonly schema = 'rewind',
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`"${schema}" is not a valid schema name: use lower-case letters, digits and "_".`);
    this.table = `"${schema}".memory_policies`;
  }

  /** Creates the table on first use (an advisory-locked migration); a failed attempt is retried on the next call. */
  private ensure(): Promise<void> {
    this.ready ??= migrateMemory(this.pool, this.schema).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async get(tenantId: string, sessionId?: string): Promise<MemoryPolicy | null> {
    await this.ensure();
    const { rows } = await this.pool.query<{ policy: MemoryPolicy }>(`SELECT policy FROM ${this.table} WHERE tenant_id = $1 AND session_id = $2`, [
      tenantId,
      sessionId ?? '',
    ]);
    return rows[0]?.policy ?? null;
  }

  /** One round trip for all the keys (the indexer's batch: every session it holds events of). */
  async getMany(keys: readonly PolicyKey[]): Promise<(MemoryPolicy | null)[]> {
    if (keys.length === 0) return [];
    await this.ensure();
    const { rows } = await this.pool.query<{ i: string; policy: MemoryPolicy }>(
      `SELECT k.i, p.policy
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(tenant_id, session_id, i)
         JOIN ${this.table} p ON p.tenant_id = k.tenant_id AND p.session_id = k.session_id`,
      [keys.map((k) => k.tenantId), keys.map((k) => k.sessionId ?? '')],
    );
    const settings: (MemoryPolicy | null)[] = keys.map(() => null);
    for (const row of rows) settings[Number(row.i) - 1] = row.policy;
    return settings;
  }

  async set(tenantId: string, sessionId: string | undefined, policy: MemoryPolicy): Promise<void> {
    await this.ensure();
    await this.pool.query(
      `INSERT INTO ${this.table} (tenant_id, session_id, policy) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, session_id) DO UPDATE SET policy = excluded.policy, updated_at = now()`,
      [tenantId, sessionId ?? '', policy],
    );
  }

  close(): void {}
}
