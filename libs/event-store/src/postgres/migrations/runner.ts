import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../transaction';
import type { Migration } from './migration';

/** Taken, with the schema's name, by every set's runner before its own lock, and by the read models' migrations (see applyMigrations). */
export const SCHEMA_MIGRATION_LOCK = 'rewind.schema.migrate';

/** One set of numbered migrations in a schema, recorded in its own table. */
export interface MigrationSet {
  /** The unquoted schema name. */
  schema: string;
  /** The table recording applied versions (e.g. `schema_migrations`, `memory_migrations`). */
  table: string;
  /** Names the advisory lock: concurrent openers of the same set wait for each other. */
  lock: string;
  /** Every migration, in order, over the quoted schema name. */
  migrations: (quotedSchema: string) => Migration[];
}

/**
 * The one PostgreSQL migration runner: applies the set's pending migrations up to `migrateTo`
 * in one transaction under advisory locks (concurrent openers wait, then find them applied).
 * An up-to-date schema costs two reads and takes no lock, so it needs no privilege beyond
 * reading.
 *
 * Every set of a schema takes the schema's own lock first: the sets of different stores
 * (events, checkpoints, data keys, …) create the same schema, and two concurrent
 * `CREATE SCHEMA IF NOT EXISTS` (or `CREATE TABLE IF NOT EXISTS`) collide on the catalog's
 * unique indexes (`pg_namespace_nspname_index`, `pg_type_typname_nsp_index`) instead of
 * waiting for each other (issue 38). The locks are session-level and taken before BEGIN: an
 * advisory lock does not make the session read the catalog changes committed while it waited
 * (a transaction begun before them still believed the schema or the table missing, and created
 * it again); a transaction begun after the wait does.
 */
export async function applyMigrations(client: PoolClient, set: MigrationSet, migrateTo = Number.MAX_SAFE_INTEGER): Promise<void> {
  const s = `"${set.schema}"`;
  const table = `${s}.${set.table}`;
  const all = set.migrations(s).filter((m) => m.version <= migrateTo);
  const applied = async (): Promise<Set<number>> => {
    const exists = await client.query<{ t: string | null }>(`SELECT to_regclass($1::text)::text AS t`, [table]);
    if (!exists.rows[0]?.t) return new Set();
    return new Set((await client.query<{ version: number }>(`SELECT version FROM ${table}`)).rows.map((r) => r.version));
  };
  const done = await applied();
  if (all.every((m) => done.has(m.version))) return;
  const locks = [SCHEMA_MIGRATION_LOCK, set.lock];
  for (const lock of locks) await client.query(`SELECT pg_advisory_lock(hashtext($1::text), hashtext($2::text))`, [lock, set.schema]);
  try {
    await inTransaction(client, async () => {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${table} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const now = await applied();
      for (const migration of all) {
        if (now.has(migration.version)) continue;
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      }
    });
  } finally {
    for (const lock of locks.reverse()) await client.query(`SELECT pg_advisory_unlock(hashtext($1::text), hashtext($2::text))`, [lock, set.schema]);
  }
}

/** applyMigrations on a connection of the pool, given back afterwards: how a store beside the event store migrates its tables at open. */
export async function applyMigrationsInPool(pool: Pool, set: MigrationSet): Promise<void> {
  const client = await pool.connect();
  try {
    await applyMigrations(client, set);
  } finally {
    client.release();
  }
}
