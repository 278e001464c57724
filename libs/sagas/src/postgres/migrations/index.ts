import { applyMigrations, type Migration, type PostgresEventStore } from '@rewind/event-store/postgres';
import { sagaMigration1 } from './0001-rollback-leases';

/** Every saga migration, in order, over the quoted schema name `s`. Frozen once released: a change is a new one. */
export function sagaMigrations(s: string): Migration[] {
  return [sagaMigration1(s)];
}

/**
 * Applies the sagas' pending migrations (their own `saga_migrations` table, beside the event
 * store's) with the event store's runner, under its advisory lock: processes starting at once
 * wait for each other, then find them applied.
 */
export async function migrateSagas(pool: PostgresEventStore['pool'], schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await applyMigrations(client, { schema, table: 'saga_migrations', lock: 'rewind.sagas.migrate', migrations: sagaMigrations });
  } finally {
    client.release();
  }
}
