import type { PostgresEventStore } from '@rewind/event-store/postgres';
import type { RollbackLeaseStore } from '../leases/rollback-lease-store';
import { PostgresRollbackLeaseStore } from './postgres-rollback-lease-store';

/**
 * The leases for the processes of a deployment: on PostgreSQL, a table they all share (its
 * migration applied now, on the event store's pool and schema). Other stores run one process
 * (SQLite) or keep no shared tables: none, and a rollback left in progress resumes when its
 * process starts again.
 */
export async function openRollbackLeaseStore(backend: { kind: string; events: object }): Promise<RollbackLeaseStore | undefined> {
  if (backend.kind !== 'postgres') return undefined;
  const { pool, schema } = backend.events as PostgresEventStore;
  return PostgresRollbackLeaseStore.open(pool, schema);
}
