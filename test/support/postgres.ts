import { randomBytes } from 'node:crypto';
import { createTestDatabase as createDatabase, TEST_DATABASE_ADMIN_URL, type TestDatabase } from '@rewind/event-store/testing/postgres';

export { TEST_DATABASE_ADMIN_URL, type TestDatabase };

/** A fresh, empty database; fails loudly (never skips) when PostgreSQL is unreachable. */
export function createTestDatabase(prefix = 'rewind_e2e'): Promise<TestDatabase> {
  return createDatabase(prefix);
}

export type E2eStore = 'sqlite' | 'postgres' | 'eventstoredb';

/**
 * The stores every HTTP end-to-end suite runs against: EventStoreDB too whenever
 * EVENTSTOREDB_URL names a server (none can be obtained on the development machine).
 */
export const E2E_STORES: readonly E2eStore[] = process.env.EVENTSTOREDB_URL ? ['sqlite', 'postgres', 'eventstoredb'] : ['sqlite', 'postgres'];

/** Environment for the API on the given store, and how to clean up after it. */
export async function storeEnv(store: E2eStore): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (store === 'sqlite') return { env: {}, cleanup: async () => undefined };
  if (store === 'eventstoredb') {
    // A namespace of its own: an empty log on a shared server (streams are left behind, as the server keeps them).
    const namespace = `rewind-e2e-${randomBytes(4).toString('hex')}`;
    return {
      env: { REWIND_STORE: 'eventstoredb', EVENTSTOREDB_URL: process.env.EVENTSTOREDB_URL!, REWIND_ESDB_NAMESPACE: namespace },
      cleanup: async () => undefined,
    };
  }
  const db = await createTestDatabase();
  return { env: { REWIND_STORE: 'postgres', DATABASE_URL: db.url }, cleanup: () => db.drop() };
}
