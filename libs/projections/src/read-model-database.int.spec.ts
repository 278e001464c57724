import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReadModelDatabase, ReadModelUnavailableError } from './read-model-database';
import { PROJECTION_NAMES } from './projections';
import { READ_MODEL_TABLES } from './schema';
import { backendsUnderTest, type Fixture } from './testing/backends';

for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`read-model database on ${on}`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await backend.open();
    });
    afterEach(() => f.close());
    afterAll(() => backend.dispose());

    async function columnsOf(table: string): Promise<{ name: string; nullable: boolean; pk: boolean }[]> {
      if (backend.name === 'sqlite') {
        const rows: { name: string; notnull: number; pk: number }[] = await f.db.dataSource.query(`PRAGMA table_info("${table}")`);
        return rows.map((r) => ({ name: r.name, nullable: r.notnull === 0, pk: r.pk > 0 }));
      }
      const rows: { name: string; nullable: string; pk: boolean }[] = await f.db.dataSource.query(
        `SELECT c.column_name AS name, c.is_nullable AS nullable,
                EXISTS (SELECT 1 FROM information_schema.key_column_usage k JOIN information_schema.table_constraints t ON t.constraint_name = k.constraint_name AND t.table_schema = k.table_schema
                         WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_schema = c.table_schema AND k.table_name = c.table_name AND k.column_name = c.column_name) AS pk
           FROM information_schema.columns c WHERE c.table_schema = $1 AND c.table_name = $2 ORDER BY c.ordinal_position`,
        [f.db.dialect.schema, table],
      );
      return rows.map((r) => ({ name: r.name, nullable: r.nullable === 'YES', pk: r.pk }));
    }

    it('the migrations create every table exactly as the projection writers expect it', async () => {
      for (const table of READ_MODEL_TABLES) {
        expect({ table: table.name, columns: await columnsOf(table.name) }).toEqual({
          table: table.name,
          columns: table.columns.map((c) => ({ name: c.name, nullable: c.nullable === true, pk: table.primaryKey.includes(c.name) })),
        });
      }
      expect((await f.db.checkpoints()).map((c) => [c.name, c.position])).toEqual([...PROJECTION_NAMES].sort().map((n) => [n, 0]));
    });

    it('opening again (or from several processes at once) applies nothing twice', async () => {
      const again = await Promise.all([ReadModelDatabase.open(f.config), ReadModelDatabase.open(f.config), ReadModelDatabase.open(f.config)]);
      for (const db of again) await db.close();
      const applied: unknown[] = await f.db.dataSource.query(`SELECT name FROM ${f.db.dialect.qualified('read_model_migrations')}`);
      expect(applied).toHaveLength(1);
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
