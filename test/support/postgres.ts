import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Where the test suites create their throw-away databases (CI: the machine's PostgreSQL). */
export const TEST_DATABASE_ADMIN_URL = process.env.REWIND_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database; fails loudly (never skips) when PostgreSQL is unreachable. */
export async function createTestDatabase(prefix = 'rewind_e2e'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_DATABASE_ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL suites need a server at ${TEST_DATABASE_ADMIN_URL} (set REWIND_TEST_DATABASE_URL): ${(error as Error).message}`);
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new Client({ connectionString: TEST_DATABASE_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
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
