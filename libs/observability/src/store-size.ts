import { stat } from 'node:fs/promises';

/** A store on PostgreSQL: its pool and schema (PostgresEventStore has both). */
interface PostgresLike {
  pool: { query<R>(sql: string, params: unknown[]): Promise<{ rows: R[] }> };
  schema: string;
}

const isPostgres = (store: unknown): store is PostgresLike =>
  typeof store === 'object' && store !== null && 'pool' in store && 'schema' in store && typeof (store as PostgresLike).schema === 'string';

/**
 * Bytes the event store takes: on PostgreSQL every table of its schema with indexes and
 * TOAST; embedded, the SQLite file with its write-ahead log.
 */
export async function storeSizeBytes(store: unknown, sqliteFile: string): Promise<number> {
  if (isPostgres(store)) {
    const { rows } = await store.pool.query<{ bytes: string | null }>(
      `SELECT sum(pg_total_relation_size(c.oid))::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [store.schema],
    );
    return Number(rows[0]?.bytes ?? 0);
  }
  let total = 0;
  for (const file of [sqliteFile, `${sqliteFile}-wal`])
    total += await stat(file).then(
      (s) => s.size,
      () => 0,
    );
  return total;
}
