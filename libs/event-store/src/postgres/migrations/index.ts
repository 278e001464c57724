import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../transaction';
import { migration1 } from './0001-event-store-tables';
import { migration2 } from './0002-compact-events';
import { migration3 } from './0003-group-commit';
import { migration4 } from './0004-snapshot-segments';
import { migration5 } from './0005-event-seals';
import { migration6 } from './0006-deflated-snapshots';
import { migration7 } from './0007-event-type-codes';
import type { Migration } from './migration';

export type { Migration } from './migration';

/** Every migration, in order, over the quoted schema name `s`. */
export function migrations(s: string): Migration[] {
  return [migration1(s), migration2(s), migration3(s), migration4(s), migration5(s), migration6(s), migration7(s)];
}

/**
 * Applies pending numbered migrations under an advisory lock (concurrent openers wait, then see
 * them applied); returns the position origin. An up-to-date schema needs no DDL and no privilege
 * beyond reading it.
 */
export async function migrate(client: PoolClient, schema: string, migrateTo = Number.MAX_SAFE_INTEGER): Promise<number> {
  const s = `"${schema}"`;
  const latest = Math.min(migrateTo, Math.max(...migrations(s).map((m) => m.version)));
  const current = async (): Promise<number> => {
    const exists = await client.query<{ t: string | null }>(`SELECT to_regclass($1::text)::text AS t`, [`${s}.schema_migrations`]);
    if (!exists.rows[0]?.t) return 0;
    const max = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${s}.schema_migrations`);
    return max.rows[0]?.v ?? 0;
  };
  if ((await current()) < latest) {
    await inTransaction(client, async () => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('rewind.migrate'), hashtext($1::text))`, [schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
           version    integer     PRIMARY KEY,
           name       text        NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const applied = await current();
      for (const migration of migrations(s)) {
        if (migration.version <= applied || migration.version > latest) continue;
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      }
    });
  }
  const info = await client.query<{ xid_origin: number }>(`SELECT xid_origin FROM ${s}.store_info`);
  const origin = info.rows[0]?.xid_origin;
  if (origin === undefined) throw new Error(`${schema}.store_info is empty: the schema was not created by Rewind.`);
  return origin;
}

/** Names of the migrations the schema lacks (none once a Rewind process has opened it); for readiness probes. */
export async function pendingMigrations(pool: Pick<Pool, 'query'>, schema: string): Promise<string[]> {
  const s = `"${schema}"`;
  const exists = await pool.query<{ t: string | null }>(`SELECT to_regclass($1::text)::text AS t`, [`${s}.schema_migrations`]);
  const applied = exists.rows[0]?.t
    ? new Set((await pool.query<{ version: number }>(`SELECT version FROM ${s}.schema_migrations`)).rows.map((r) => r.version))
    : new Set<number>();
  return migrations(s)
    .filter((m) => !applied.has(m.version))
    .map((m) => `${schema} ${m.version} ${m.name}`);
}
