import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { READ_MODEL_MIGRATIONS, ReadModelDatabase, ReadModelUnavailableError } from './read-model-database';
import { PROJECTION_NAMES } from './projections';
import { CHECKPOINTS, DECLARED_TYPES, primaryKeyName, READ_MODEL_TABLES, type TableSpec } from './schema';
import { backendsUnderTest, type Fixture } from './testing/backends';

interface Described {
  columns: { name: string; type: string; nullable: boolean }[];
  primaryKey: { name: string | null; columns: string[] } | null;
  indexes: { name: string; columns: string[]; unique: boolean }[];
}

for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`read-model database on ${on}`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await backend.open();
    });
    afterEach(() => f.close());
    afterAll(() => backend.dispose());

    /** A table as the database describes it, in the terms of `schema.ts`. */
    async function describeTable(table: string): Promise<Described> {
      if (backend.name === 'sqlite') {
        const columns: { name: string; type: string; notnull: number; pk: number }[] = await f.db.dataSource.query(`PRAGMA table_info("${table}")`);
        const indexes: { name: string; unique: number; origin: string }[] = await f.db.dataSource.query(`PRAGMA index_list("${table}")`);
        const secondary: Described['indexes'] = [];
        for (const index of indexes.filter((i) => i.origin !== 'pk').sort((a, b) => (a.name < b.name ? -1 : 1))) {
          const parts: { seqno: number; name: string }[] = await f.db.dataSource.query(`PRAGMA index_info("${index.name}")`);
          secondary.push({ name: index.name, columns: parts.sort((a, b) => a.seqno - b.seqno).map((p) => p.name), unique: index.unique === 1 });
        }
        return {
          columns: columns.map((c) => ({ name: c.name, type: c.type.toLowerCase(), nullable: c.notnull === 0 })),
          // SQLite keeps no name for a primary key constraint.
          primaryKey: {
            name: null,
            columns: columns
              .filter((c) => c.pk > 0)
              .sort((a, b) => a.pk - b.pk)
              .map((c) => c.name),
          },
          indexes: secondary,
        };
      }
      const relation = f.db.dialect.qualified(table);
      const columns: { name: string; type: string; nullable: string }[] = await f.db.dataSource.query(
        `SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
        [f.db.dialect.schema, table],
      );
      const keys: { name: string; columns: string[] }[] = await f.db.dataSource.query(
        `SELECT c.conname AS name,
                array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
                        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns
           FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype = 'p'`,
        [relation],
      );
      const indexes: { name: string; columns: string[]; unique: boolean }[] = await f.db.dataSource.query(
        `SELECT i.relname AS name, x.indisunique AS unique,
                array(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                        JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns
           FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
          WHERE x.indrelid = $1::regclass AND NOT x.indisprimary ORDER BY i.relname`,
        [relation],
      );
      return {
        columns: columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable === 'YES' })),
        primaryKey: keys[0] ?? null,
        indexes: indexes.map((i) => ({ name: i.name, columns: i.columns, unique: i.unique })),
      };
    }

    /** What `schema.ts` says the database has. */
    function defined(table: TableSpec): Described {
      return {
        columns: table.columns.map((c) => ({ name: c.name, type: DECLARED_TYPES[backend.name][c.kind], nullable: c.nullable === true })),
        primaryKey: { name: backend.name === 'postgres' ? primaryKeyName(table) : null, columns: [...table.primaryKey] },
        indexes: [...(table.indexes ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1)).map((i) => ({ name: i.name, columns: [...i.columns], unique: false })),
      };
    }

    it('the migrations create every table exactly as schema.ts defines it: columns, types, nullability, keys, indexes', async () => {
      for (const table of [CHECKPOINTS, ...READ_MODEL_TABLES]) {
        expect({ table: table.name, ...(await describeTable(table.name)) }).toEqual({ table: table.name, ...defined(table) });
      }
      expect((await f.db.checkpoints()).map((c) => [c.name, c.position])).toEqual([...PROJECTION_NAMES].sort().map((n) => [n, 0]));
    });

    it('opening again (or from several processes at once) applies nothing twice', async () => {
      const again = await Promise.all([ReadModelDatabase.open(f.config), ReadModelDatabase.open(f.config), ReadModelDatabase.open(f.config)]);
      for (const db of again) await db.close();
      const applied: { name: string }[] = await f.db.dataSource.query(`SELECT name FROM ${f.db.dialect.qualified('read_model_migrations')}`);
      expect(applied.map((m) => m.name).sort()).toEqual(READ_MODEL_MIGRATIONS.map((m) => m.name).sort());
    });

    if (backend.name === 'postgres') {
      it('the TypeORM entities match the migrated schema (nothing to synchronize)', async () => {
        const pending = await f.db.dataSource.driver.createSchemaBuilder().log();
        expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      });

      it('an unreachable server is reported plainly, without the password', async () => {
        const error = await ReadModelDatabase.open({ type: 'postgres', url: 'postgres://rewind:s3cret@127.0.0.1:1/rewind', connectionTimeoutMs: 2000 }).catch(
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ReadModelUnavailableError);
        expect((error as Error).message).toMatch(/Cannot open the read models in PostgreSQL postgres:\/\/rewind:\*\*\*@127\.0\.0\.1:1\/rewind/);
        expect((error as Error).message).not.toContain('s3cret');
      });
    }
  });
}
