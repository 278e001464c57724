import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { maskConnectionString } from '../postgres/errors';

/** The server the PostgreSQL suites create their throw-away databases on (CI: the machine's own). */
export const TEST_DATABASE_ADMIN_URL = process.env.REWIND_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function testDatabaseUrl(database: string): string {
  const url = new URL(TEST_DATABASE_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs `work` on a connection to the admin database; fails loudly (never skips) when the server is unreachable. */
export async function withAdminClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_DATABASE_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The PostgreSQL suites need a server: cannot connect to ${maskConnectionString(TEST_DATABASE_ADMIN_URL)} (${(error as Error).message}). ` +
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
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database named `<prefix>_<random>`; drop it after. */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withAdminClient((c) => c.query(`CREATE DATABASE ${name}`));
  return { name, url: testDatabaseUrl(name), drop: () => dropTestDatabase(name) };
}

/**
 * Drops the database once the suite's own connections have gone. `pool.end()` resolves before
 * its sockets have closed, and `DROP ... WITH (FORCE)` ends a session that is still there with a
 * FATAL message (57P01) that the closing client emits as an error nobody listens to any more.
 * So wait up to `graceMs` for the sessions to leave; FORCE is only for what a suite leaked.
 */
export async function dropTestDatabase(name: string, graceMs = 5000): Promise<void> {
  await withAdminClient(async (c) => {
    const deadline = Date.now() + graceMs;
    for (;;) {
      const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
      if (rows[0]!.n === 0 || Date.now() > deadline) break;
      await sleep(20);
    }
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}
