import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { maskConnectionString } from './errors';
import { PostgresEventStore, type PostgresEventStoreOptions } from './postgres-event-store';

/** For the integration tests: the server they run against. */
export const ADMIN_URL = process.env.REWIND_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The PostgreSQL integration tests need a server: cannot connect to ${maskConnectionString(ADMIN_URL)} (${String((error as Error).message)}). ` +
        'Start PostgreSQL or set REWIND_TEST_DATABASE_URL.',
      { cause: error },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  /** The test database's URL (set once beforeAll has run). */
  readonly url: string;
  /** A store over its own fresh schema in the test database. */
  openStore(options?: Partial<PostgresEventStoreOptions>): Promise<PostgresEventStore>;
}

/**
 * A fresh database for the calling spec file, created before its tests and dropped after them.
 * A real server is required: when it cannot be reached, beforeAll throws and every test fails
 * (never skipped).
 */
export function useTestDatabase(): TestDatabase {
  const database = `rewind_test_${randomBytes(6).toString('hex')}`;
  let url = '';
  let schemaCounter = 0;
  beforeAll(async () => {
    await admin((c) => c.query(`CREATE DATABASE ${database}`));
    url = urlFor(database);
  });
  afterAll(async () => {
    if (url) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });
  return {
    get url() {
      return url;
    },
    openStore: (options = {}) =>
      PostgresEventStore.open({ connectionString: url, schema: `s${++schemaCounter}_${randomBytes(3).toString('hex')}`, ...options }),
  };
}
