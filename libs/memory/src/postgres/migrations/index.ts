import type { Pool } from 'pg';
import { withTransaction } from '@rewind/event-store/postgres';
import { memoryMigration1 } from './0001-memory-policies';
import type { MemoryMigration } from './memory-migration';

export type { MemoryMigration } from './memory-migration';

/** Every memory migration, in order, over the quoted schema name `s`. */
export function memoryMigrations(s: string): MemoryMigration[] {
  return [memoryMigration1(s)];
}

/**
 * Applies memory's pending migrations (its own `memory_migrations` table, beside the event
 * store's) under an advisory lock: concurrent openers wait, then find them applied.
 */
export async function migrateMemory(pool: Pool, schema: string): Promise<void> {
  const s = `"${schema}"`;
  await withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('rewind.memory.migrate'), hashtext($1::text))`, [schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.memory_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied = new Set((await client.query<{ version: number }>(`SELECT version FROM ${s}.memory_migrations`)).rows.map((r) => r.version));
    for (const migration of memoryMigrations(s)) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${s}.memory_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
    }
  });
}
