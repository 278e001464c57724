import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../test-database';
import { applyMigrations, type MigrationSet } from './index';

const db = useTestDatabase();

describe('applyMigrations (the one PostgreSQL runner)', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: db.url, max: 8 });
  });
  afterAll(() => pool.end());

  const setIn = (schema: string, count: number): MigrationSet => ({
    schema,
    table: 'things_migrations',
    lock: 'rewind.test.migrate',
    migrations: (s) =>
      Array.from({ length: count }, (_, i) => ({ version: i + 1, name: `thing ${i + 1}`, sql: `CREATE TABLE ${s}.thing_${i + 1} (id int PRIMARY KEY)` })),
  });
  const versions = async (schema: string) =>
    (await pool.query<{ version: number }>(`SELECT version FROM "${schema}".things_migrations ORDER BY version`)).rows.map((r) => r.version);
  const apply = async (set: MigrationSet, migrateTo?: number) => {
    const client = await pool.connect();
    try {
      await applyMigrations(client, set, migrateTo);
    } finally {
      client.release();
    }
  };

  it('applies each migration once, even to concurrent openers, and only up to migrateTo', async () => {
    const schema = `runner_${randomBytes(3).toString('hex')}`;
    await apply(setIn(schema, 3), 2);
    expect(await versions(schema)).toEqual([1, 2]);
    await Promise.all([apply(setIn(schema, 3)), apply(setIn(schema, 3)), apply(setIn(schema, 3))]);
    expect(await versions(schema)).toEqual([1, 2, 3]);
    await apply(setIn(schema, 3)); // up to date: nothing runs (a CREATE TABLE again would throw)
    expect(await versions(schema)).toEqual([1, 2, 3]);
  });

  it('continues a schema whose table an older runner created, and rolls back a failing migration whole', async () => {
    const schema = `runner_${randomBytes(3).toString('hex')}`;
    // What the hand-written runners left: the same table shape, some versions applied.
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(
      `CREATE TABLE "${schema}".things_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await pool.query(`CREATE TABLE "${schema}".thing_1 (id int PRIMARY KEY)`);
    await pool.query(`INSERT INTO "${schema}".things_migrations (version, name) VALUES (1, 'thing 1')`);
    await apply(setIn(schema, 2));
    expect(await versions(schema)).toEqual([1, 2]);
    const broken: MigrationSet = {
      ...setIn(schema, 2),
      migrations: (s) => [
        ...setIn(schema, 2).migrations(s),
        { version: 3, name: 'ok', sql: `CREATE TABLE ${s}.thing_3 (id int)` },
        { version: 4, name: 'bad', sql: 'SELECT nonsense' },
      ],
    };
    await expect(apply(broken)).rejects.toThrow(/nonsense/);
    expect(await versions(schema)).toEqual([1, 2]);
    expect((await pool.query(`SELECT to_regclass('"${schema}".thing_3') AS t`)).rows[0].t).toBeNull();
  });

  it('lets the sets of different stores create one fresh schema at once (they wait for each other, not collide in the catalog)', async () => {
    const schema = `runner_${randomBytes(3).toString('hex')}`;
    const storeSet = (store: string): MigrationSet => ({
      schema,
      table: `${store}_migrations`,
      lock: `rewind.test.${store}.migrate`,
      migrations: (s) => [{ version: 1, name: store, sql: `CREATE TABLE IF NOT EXISTS ${s}.${store} (id int PRIMARY KEY)` }],
    });
    const stores = ['alpha', 'beta', 'gamma', 'delta'];
    // Each set twice: without the schema's lock, CREATE SCHEMA and CREATE TABLE IF NOT EXISTS race (pg_namespace / pg_type unique indexes).
    const results = await Promise.allSettled([...stores, ...stores].map((store) => apply(storeSet(store))));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    for (const store of stores) {
      const { rows } = await pool.query<{ version: number }>(`SELECT version FROM "${schema}".${store}_migrations`);
      expect(rows.map((r) => r.version)).toEqual([1]);
    }
  });
});
