/**
 * Fresh PostgreSQL databases for the suite, named after the run so that the orchestrator can
 * drop whatever a crashed job left behind (and nothing else).
 */
import { Client } from 'pg';
import type * as PostgresTesting from '@rewind/event-store/testing/postgres';
import type { TestDatabase } from '../../support/postgres';
import { builtTestHelper } from '../built-test-helper';

// The test helper from its build output: no package exports it, and the suite runs compiled under plain Node.
const { createTestDatabase, TEST_DATABASE_ADMIN_URL } = builtTestHelper<typeof PostgresTesting>('libs/event-store/dist/testing/postgres-test-database.js');

export const ADMIN_URL = TEST_DATABASE_ADMIN_URL;

/** `rwb_<run>_<purpose>_<random>`; `run` is lower-case letters and digits. */
export async function createBenchDatabase(run: string, purpose: string): Promise<TestDatabase> {
  return createTestDatabase(`rwb_${run}_${purpose}`);
}

/** Drops every database this run created (a job killed mid-way leaves its database behind). */
export async function dropRunDatabases(run: string): Promise<string[]> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`rwb\\_${run}\\_%`]);
    for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    return rows.map((r) => r.datname);
  } finally {
    await admin.end();
  }
}

export async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * `pg_total_relation_size` of each table (heap, TOAST, indexes, free-space and visibility maps),
 * summed over its partitions when it is partitioned (Emmett's tables are). Missing tables count 0.
 */
export async function tableSizes(url: string, tables: string[]): Promise<Record<string, number>> {
  return withClient(url, async (client) => {
    const sizes: Record<string, number> = {};
    for (const table of tables) {
      const { rows } = await client.query<{ bytes: string | null }>(
        `SELECT CASE
                  WHEN c.oid IS NULL THEN 0
                  WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_total_relation_size(p.relid)), 0) FROM pg_partition_tree(c.oid) p WHERE p.isleaf)
                  ELSE pg_total_relation_size(c.oid)
                END AS bytes
           FROM (SELECT to_regclass($1::text) AS oid) r
           LEFT JOIN pg_class c ON c.oid = r.oid`,
        [table],
      );
      sizes[table] = Number(rows[0]?.bytes ?? 0);
    }
    return sizes;
  });
}

/**
 * The sum of `pg_column_size` of each table's whole rows (partitions included): the rows as
 * stored — values compressed where PostgreSQL compressed them, TOASTed values counted whole —
 * without page slack, indexes or free-space maps. Missing tables count 0.
 */
export async function rowSizes(url: string, tables: string[]): Promise<Record<string, number>> {
  return withClient(url, async (client) => {
    const sizes: Record<string, number> = {};
    for (const table of tables) {
      const exists = await client.query<{ t: string | null }>(`SELECT to_regclass($1::text)::text AS t`, [table]);
      if (!exists.rows[0]?.t) {
        sizes[table] = 0;
        continue;
      }
      const { rows } = await client.query<{ bytes: string | null }>(`SELECT coalesce(sum(pg_column_size(t.*)), 0) AS bytes FROM ${table} t`);
      sizes[table] = Number(rows[0]?.bytes ?? 0);
    }
    return sizes;
  });
}

export function sizeDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const table of Object.keys(after)) delta[table] = (after[table] ?? 0) - (before[table] ?? 0);
  return delta;
}

export const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);
