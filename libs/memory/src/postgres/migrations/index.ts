import type { Pool } from 'pg';
import { memoryMigrations } from './all';

export type { MemoryMigration } from './memory-migration';
export { memoryMigrations } from './all';

/**
 * Applies memory's pending migrations (its own `memory_migrations` table, beside the event
 * store's) with the event store's runner: concurrent openers wait, then find them applied. The
 * runner is loaded on first use, as `pg` is: the memory runtime (which names the PostgreSQL index)
 * loads neither in a process on SQLite.
 */
// Named through a constant: a literal `import()` in this CommonJS build is typed from the package's ESM
// declarations (dist/esm), which a clean build writes only after tsc; the type query reads the CommonJS ones.
const EVENT_STORE_POSTGRES = '@rewind/event-store/postgres';

export async function migrateMemory(pool: Pool, schema: string): Promise<void> {
  const { applyMigrations } = (await import(EVENT_STORE_POSTGRES)) as typeof import('@rewind/event-store/postgres');
  const client = await pool.connect();
  try {
    await applyMigrations(client, { schema, table: 'memory_migrations', lock: 'rewind.memory.migrate', migrations: memoryMigrations });
  } finally {
    client.release();
  }
}
