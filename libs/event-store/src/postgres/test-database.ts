import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase as Database } from '../testing/postgres-test-database';
import { PostgresEventStore, type PostgresEventStoreOptions } from './postgres-event-store';

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
  let database: Database | undefined;
  let schemaCounter = 0;
  beforeAll(async () => {
    database = await createTestDatabase('rewind_test');
  });
  afterAll(async () => {
    await database?.drop();
  });
  return {
    get url() {
      return database?.url ?? '';
    },
    openStore: (options = {}) =>
      PostgresEventStore.open({ connectionString: database!.url, schema: `s${++schemaCounter}_${randomBytes(3).toString('hex')}`, ...options }),
  };
}
