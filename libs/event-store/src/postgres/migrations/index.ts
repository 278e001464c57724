import type { Pool, PoolClient } from 'pg';
import { migration1 } from './0001-event-store-tables';
import { migration2 } from './0002-compact-events';
import { migration3 } from './0003-group-commit';
import { migration4 } from './0004-snapshot-segments';
import { migration5 } from './0005-event-seals';
import { migration6 } from './0006-deflated-snapshots';
import { migration7 } from './0007-event-type-codes';
import { migration8 } from './0008-audit-links';
import { migration9 } from './0009-snapshot-keys';
import type { Migration } from './migration';
import { applyMigrations, type MigrationSet } from './runner';

export type { Migration } from './migration';
export { applyMigrations, applyMigrationsInPool, SCHEMA_MIGRATION_LOCK, type MigrationSet } from './runner';

/** Every migration, in order, over the quoted schema name `s`. */
export function migrations(s: string): Migration[] {
  return [migration1(s), migration2(s), migration3(s), migration4(s), migration5(s), migration6(s), migration7(s), migration8(s), migration9(s)];
}

/** The event store's migrations, in `schema_migrations`. */
export const eventStoreMigrations = (schema: string): MigrationSet => ({ schema, table: 'schema_migrations', lock: 'rewind.migrate', migrations });

/**
 * Applies pending numbered migrations (see applyMigrations); returns the position origin.
 */
export async function migrate(client: PoolClient, schema: string, migrateTo = Number.MAX_SAFE_INTEGER): Promise<number> {
  const s = `"${schema}"`;
  await applyMigrations(client, eventStoreMigrations(schema), migrateTo);
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
