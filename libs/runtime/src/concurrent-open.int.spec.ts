import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@rewind/config';
import { checkpointMigrations, eventStoreMigrations, PostgresCheckpointStore, type MigrationSet } from '@rewind/event-store/postgres';
import { createTestDatabase, type TestDatabase } from '@rewind/event-store/testing/postgres';
import { memoryMigrations, PostgresPolicyStore } from '@rewind/memory/postgres';
import { PostgresKafkaSigningSecretStore, signingSecretMigrations } from '@rewind/messaging/postgres';
import { apiKeyMigrations, dataKeyMigrations, PostgresApiKeyStore, PostgresDataKeyStore } from '@rewind/tenancy/postgres';
import { openBackend, type Backend } from './backend';

const OPENERS = 5;

/** Every migration set of the stores beside the events, in one schema (the event store's own checked by pendingMigrations). */
const storeSets = (schema: string): MigrationSet[] => [
  eventStoreMigrations(schema),
  checkpointMigrations(schema),
  dataKeyMigrations(schema),
  apiKeyMigrations(schema),
  signingSecretMigrations(schema),
  { schema, table: 'memory_migrations', lock: 'rewind.memory.migrate', migrations: memoryMigrations },
];

/**
 * Issue 38: processes started at once on a fresh database raced each other's
 * `CREATE TABLE IF NOT EXISTS` at open time (`duplicate key value violates unique constraint
 * "pg_type_typname_nsp_index"`). Every store now migrates under advisory locks.
 */
describe('openBackend on PostgreSQL, several processes at once', () => {
  let database: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    database = await createTestDatabase('rewind_concurrent_open');
    pool = new Pool({ connectionString: database.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  const config = () => loadConfig({ REWIND_STORE: 'postgres', DATABASE_URL: database.url, REWIND_PG_POOL_SIZE: '3' });

  /** Opens OPENERS backends at once, then has each touch, at once, every store that migrates at its first use. */
  async function openTogether(schema: string, readModelSchema = `${schema}_read`): Promise<void> {
    const opening = await Promise.allSettled(Array.from({ length: OPENERS }, () => openBackend(config(), { schema, readModelSchema })));
    const backends = opening.filter((r): r is PromiseFulfilledResult<Backend> => r.status === 'fulfilled').map((r) => r.value);
    try {
      expect(opening.filter((r) => r.status === 'rejected')).toEqual([]);
      const used = await Promise.allSettled(
        backends.map(async (b, i) => {
          await b.checkpoints.save(`follower-${i}`, i + 1);
          await b.signingKeys.list();
          await b.memoryPolicies!.get('acme');
          await b.readModels();
        }),
      );
      expect(used.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(await backends[0]!.pendingMigrations()).toEqual([]);
    } finally {
      await Promise.all(backends.map((b) => b.close()));
    }
  }

  /** Each set's versions, each recorded once. */
  async function appliedVersions(set: MigrationSet): Promise<number[]> {
    const { rows } = await pool.query<{ version: number }>(`SELECT version FROM "${set.schema}".${set.table} ORDER BY version`);
    return rows.map((r) => r.version);
  }

  it('all start on a fresh schema, each store migrated once', async () => {
    for (let round = 0; round < 3; round++) {
      const schema = `fresh_${randomBytes(3).toString('hex')}`;
      // The last round keeps the read models in the stores' schema: they create it too.
      await openTogether(schema, round === 2 ? schema : undefined);
      for (const set of storeSets(schema)) {
        expect(await appliedVersions(set), `${set.table}`).toEqual(set.migrations(`"${schema}"`).map((m) => m.version));
      }
      const { rows } = await pool.query<{ name: string; position: string }>(
        `SELECT name, position FROM "${schema}".subscriber_checkpoints WHERE name LIKE 'follower-%' ORDER BY name`,
      );
      expect(rows.map((r) => [r.name, Number(r.position)])).toEqual(Array.from({ length: OPENERS }, (_, i) => [`follower-${i}`, i + 1]));
    }
  });

  it('all start on a schema whose tables the old open-time code made, adopting them with their rows', async () => {
    const schema = `old_${randomBytes(3).toString('hex')}`;
    // What a release before the migrations left: the event store migrated, the other stores' tables made at open, no record of them.
    const first = await openBackend(config(), { schema });
    await first.checkpoints.load('any');
    await first.signingKeys.list();
    await first.close();
    for (const table of ['checkpoint_migrations', 'data_key_migrations', 'signing_secret_migrations']) await pool.query(`DROP TABLE "${schema}".${table}`);
    await pool.query(`DELETE FROM "${schema}".subscriber_checkpoints`);
    await pool.query(`INSERT INTO "${schema}".subscriber_checkpoints (name, position) VALUES ('relay:rewind.events', 42)`);
    await pool.query(`INSERT INTO "${schema}".retention_policies (tenant_id, inactive_days) VALUES ('acme', 30)`);
    await pool.query(
      `INSERT INTO "${schema}".kafka_signing_keys (key_id, tenant_id, name, secret, created_at, previous_secret, previous_valid_until)
       VALUES ('k1', 'acme', 'bot', 'new', now(), 'old', now() + interval '1 hour')`,
    );

    await openTogether(schema);

    for (const set of storeSets(schema)) {
      expect(await appliedVersions(set), `${set.table}`).toEqual(set.migrations(`"${schema}"`).map((m) => m.version));
    }
    const checkpoint = await pool.query(`SELECT position FROM "${schema}".subscriber_checkpoints WHERE name = 'relay:rewind.events'`);
    expect(Number(checkpoint.rows[0].position)).toBe(42);
    expect((await pool.query(`SELECT inactive_days FROM "${schema}".retention_policies`)).rows).toEqual([{ inactive_days: 30 }]);
    // The replaced secret moved into its own table once, whichever opener ran the migration.
    expect((await pool.query(`SELECT key_id, secret FROM "${schema}".kafka_signing_previous_secrets`)).rows).toEqual([{ key_id: 'k1', secret: 'old' }]);
  });

  it('every store beside the events opens 5 times at once on a schema that does not exist yet', async () => {
    const schema = `bare_${randomBytes(3).toString('hex')}`;
    const stores = new Pool({ connectionString: database.url, max: 20 });
    try {
      const opens = Array.from({ length: OPENERS }, (_, i) => [
        new PostgresCheckpointStore(stores, Date.now, schema).save(`follower-${i}`, i + 1),
        PostgresDataKeyStore.open(stores, schema),
        PostgresApiKeyStore.open(stores, schema),
        new PostgresKafkaSigningSecretStore(stores, schema).list(),
        new PostgresPolicyStore(stores, schema).get('acme'),
      ]).flat();
      const results = await Promise.allSettled(opens);
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    } finally {
      await stores.end();
    }
    for (const set of storeSets(schema).slice(1)) {
      expect(await appliedVersions(set), `${set.table}`).toEqual(set.migrations(`"${schema}"`).map((m) => m.version));
    }
  });
});
