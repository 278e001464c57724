import { escapeLiteral, type Pool } from 'pg';
import { applyMigrationsInPool } from '../postgres/migrations';
import type { CheckpointStore } from './checkpoint-store';
import { checkpointMigrations } from './postgres-checkpoint-migrations';

/**
 * Checkpoints and leases in PostgreSQL (table `<schema>.subscriber_checkpoints`), for
 * workers running on the PostgreSQL store. Lease times come from this process's clock,
 * like the SQLite store, so that leases behave the same in both.
 */
export class PostgresCheckpointStore implements CheckpointStore {
  private ready?: Promise<void>;
  private readonly table: string;
  private readonly schema: string;

  constructor(
    private readonly pool: Pool,
    private readonly now: () => number = Date.now,
    schema = 'rewind',
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`"${schema}" is not a valid schema name: use lower-case letters, digits and "_".`);
    this.table = `"${schema}".subscriber_checkpoints`;
    this.schema = schema;
  }

  /** Migrates the table on first use; a failed attempt is retried on the next call. */
  private ensure(): Promise<void> {
    this.ready ??= applyMigrationsInPool(this.pool, checkpointMigrations(this.schema)).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async load(name: string): Promise<number> {
    await this.ensure();
    const { rows } = await this.pool.query<{ position: string }>(`SELECT position FROM ${this.table} WHERE name = $1`, [name]);
    return rows[0] ? Number(rows[0].position) : 0;
  }

  /**
   * Without waiting for the disk: a checkpoint lost to a crash only means its batch is handled
   * again, as after a crash between handling and saving; a synchronous commit here made the
   * appends that followed it wait for one more WAL flush. One round trip (an implicit
   * transaction of two statements, so the values are inlined: the name escaped, the position
   * a checked integer).
   */
  async save(name: string, position: number): Promise<void> {
    if (!Number.isSafeInteger(position)) throw new Error(`Checkpoint "${name}": ${position} is not a position in the log.`);
    await this.ensure();
    await this.pool.query(
      `SELECT set_config('synchronous_commit', 'off', true);
       INSERT INTO ${this.table} (name, position) VALUES (${escapeLiteral(name)}, ${position})
       ON CONFLICT (name) DO UPDATE SET position = GREATEST(${this.table}.position, excluded.position), updated_at = now()`,
    );
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    await this.ensure();
    const now = this.now();
    const result = await this.pool.query(
      `INSERT INTO ${this.table} (name, position, owner, lease_until) VALUES ($1, 0, $2, $3)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until, updated_at = now()
       WHERE ${this.table}.owner IS NULL OR ${this.table}.owner = excluded.owner OR ${this.table}.lease_until < $4`,
      [name, owner, now + ttlMs, now],
    );
    return result.rowCount === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await this.ensure();
    await this.pool.query(`UPDATE ${this.table} SET owner = NULL, lease_until = 0, updated_at = now() WHERE name = $1 AND owner = $2`, [name, owner]);
  }

  /** The pool belongs to the event store, which closes it. */
  async close(): Promise<void> {}
}
