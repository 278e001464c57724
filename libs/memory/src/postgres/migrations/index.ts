import type { Pool } from 'pg';
import { applyMigrations } from '@rewind/event-store/postgres';
import { memoryMigration1 } from './0001-memory-policies';
import { memoryMigration2 } from './0002-memory-index';
import type { MemoryMigration } from './memory-migration';

export type { MemoryMigration } from './memory-migration';

/** Every memory migration, in order, over the quoted schema name `s`. */
export function memoryMigrations(s: string): MemoryMigration[] {
  return [memoryMigration1(s), memoryMigration2(s)];
}

/**
 * Applies memory's pending migrations (its own `memory_migrations` table, beside the event
 * store's) with the event store's runner: concurrent openers wait, then find them applied.
 */
export async function migrateMemory(pool: Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await applyMigrations(client, { schema, table: 'memory_migrations', lock: 'rewind.memory.migrate', migrations: memoryMigrations });
  } finally {
    client.release();
  }
}
