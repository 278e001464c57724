import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { Pool } from 'pg';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_ADMIN_URL } from '../../../test/support/postgres';
import { hashKey, type ApiKeyStore } from './api-key-store';
import { CachedApiKeyStore } from './cached-api-key-store';
import { ensureAdminKey } from './bootstrap-admin-key';
import { InMemoryApiKeyStore } from './in-memory-api-key-store';
import { PostgresApiKeyStore } from './postgres-api-key-store';
import { SqliteApiKeyStore } from './sqlite-api-key-store';

const pool = new Pool({ connectionString: TEST_DATABASE_ADMIN_URL, max: 4 });
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

interface Opened {
  store: ApiKeyStore;
  /** Runs SQL on the raw tables, as an operator with a database shell would. */
  raw(sql: string): Promise<void>;
}

const adapters: [string, () => Promise<Opened>][] = [
  ['in memory', async () => ({ store: new InMemoryApiKeyStore(), raw: async () => undefined })],
  [
    'SQLite',
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'rewind-keys-')), 'rewind.db');
      const store = new SqliteApiKeyStore(file);
      return {
        store,
        raw: async (sql) => {
          const db = new Database(file);
          db.exec(sql);
          db.close();
        },
      };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `rewind_keys_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      const store = await PostgresApiKeyStore.open(pool, schema);
      return { store, raw: async (sql) => void (await pool.query(sql.replaceAll('api_keys', `"${schema}".api_keys`))) };
    },
  ],
];

describe.each(adapters)('API key lifecycle (%s)', (adapterName, open) => {
  it('creates keys with scopes and an optional expiry; only the key id, never the secret, is in the record', async () => {
    const { store } = await open();
    const { key, record } = await store.create({ tenantId: 'acme', name: 'auditor', scopes: ['audit'], expiresAt: '2099-01-01T00:00:00Z' });
    expect(record).toMatchObject({ tenantId: 'acme', scopes: ['audit'], expiresAt: '2099-01-01T00:00:00.000Z', revokedAt: null });
    expect(key).toContain(record.keyId);
    expect(JSON.stringify(record)).not.toContain(hashKey(key).slice(0, 8));
    expect(await store.authenticate(key)).toMatchObject({ keyId: record.keyId, scopes: ['audit'] });
    expect((await store.create({ tenantId: 'acme', name: 'legacy agent', role: 'agent' })).record.scopes).toEqual(['write', 'read']);
    await expect(store.create({ tenantId: 'acme', name: 'x', scopes: ['root' as never] })).rejects.toThrow(/Unknown scope/);
    await expect(store.create({ tenantId: 'acme', name: 'x', expiresAt: 'soon' })).rejects.toThrow(/not a date/);
  });

  it('refuses a revoked key and an expired one, and revoking twice keeps the first instant', async () => {
    const { store } = await open();
    const { key, record } = await store.create({ tenantId: 'acme', name: 'agent' });
    const first = await store.revoke(record.keyId);
    expect(first.revokedAt).not.toBeNull();
    expect((await store.revoke(record.keyId)).revokedAt).toBe(first.revokedAt);
    expect(await store.authenticate(key)).toBeNull();
    const expired = await store.create({ tenantId: 'acme', name: 'old', expiresAt: '2001-01-01T00:00:00Z' });
    expect(await store.authenticate(expired.key)).toBeNull();
    await expect(store.revoke('nosuchkey000')).rejects.toThrow(/No API key "nosuchkey000"/);
    await expect(store.rotate(record.keyId, 60)).rejects.toThrow(/is revoked/);
  });

  it('rotates to a new secret under the same key id; the old one works for the grace period only', async () => {
    const { store } = await open();
    const { key: old, record } = await store.create({ tenantId: 'acme', name: 'agent' });
    const graced = await store.rotate(record.keyId, 3600);
    expect(graced.record.keyId).toBe(record.keyId);
    expect(graced.key).not.toBe(old);
    expect((await store.authenticate(graced.key))?.validUntil).toBeNull();
    const viaOld = await store.authenticate(old);
    expect(viaOld?.keyId).toBe(record.keyId);
    expect(viaOld?.validUntil).toBe(Date.parse(graced.record.previousSecretValidUntil!));
    const immediate = await store.rotate(record.keyId, 0);
    expect(await store.authenticate(graced.key)).toBeNull();
    // A second rotation does not cut the first one's grace short: each replaced secret keeps its own.
    expect((await store.authenticate(old))?.validUntil).toBe(viaOld!.validUntil);
    expect((await store.authenticate(immediate.key))?.keyId).toBe(record.keyId);
    expect((await store.get(record.keyId))?.previousSecretValidUntil).toBe(graced.record.previousSecretValidUntil);
    await expect(store.rotate(record.keyId, -1)).rejects.toThrow(/Grace period/);
  });

  it('a configured secret (REWIND_ADMIN_KEY) gets a random id, and stays revoked across restarts', async () => {
    const { store } = await open();
    await ensureAdminKey(store, 'my-admin-secret');
    const admin = (await store.authenticate('my-admin-secret'))!;
    expect(admin.keyId).toMatch(/^[0-9a-f]{12}$/);
    expect(admin.keyId).not.toBe(hashKey('my-admin-secret').slice(0, 12));
    await store.revoke(admin.keyId);
    await ensureAdminKey(store, 'my-admin-secret');
    expect(await store.authenticate('my-admin-secret')).toBeNull();
    expect(await store.count()).toBe(1);
  });

  it('a configured secret rotated away (twice, grace over) or revoked is refused with a clear reason, never stored again as an operator key', async () => {
    const { store } = await open();
    expect(await ensureAdminKey(store, 'first-admin-secret')).toEqual({ generated: null, refused: null });
    const admin = (await store.authenticate('first-admin-secret'))!;
    await store.rotate(admin.keyId, 0);
    const { key: current } = await store.rotate(admin.keyId, 0);
    // A restart with the first secret still configured (issue 42: it came back as a new operator key).
    const restarted = await ensureAdminKey(store, 'first-admin-secret');
    expect(restarted.refused).toMatch(new RegExp(`REWIND_ADMIN_KEY is refused .*API key ${admin.keyId} that a rotation replaced.*current secret`));
    expect(await store.authenticate('first-admin-secret')).toBeNull();
    expect(await store.count()).toBe(1);
    // Its current secret is taken up as before; once revoked, refused too.
    expect(await ensureAdminKey(store, current)).toEqual({ generated: null, refused: null });
    await store.revoke(admin.keyId);
    expect((await ensureAdminKey(store, current)).refused).toMatch(/was revoked on/);
    expect(await store.authenticate(current)).toBeNull();
    expect(await store.count()).toBe(1);
  });

  it('every change to a key, even by hand in the database, moves the change counter', async () => {
    const { store, raw } = await open();
    const { record } = await store.create({ tenantId: 'acme', name: 'agent' });
    let version = await store.changeVersion();
    for (const change of [
      () => store.setExpiry(record.keyId, '2099-01-01T00:00:00Z'),
      () => store.rotate(record.keyId, 10),
      () => store.revoke(record.keyId),
    ]) {
      await change();
      const next = await store.changeVersion();
      expect(next).not.toBe(version);
      version = next;
    }
    if (adapterName === 'in memory') return;
    await raw(`DELETE FROM api_keys WHERE key_id = '${record.keyId}'`);
    expect(await store.changeVersion()).not.toBe(version);
  });

  it('a cache in another process refuses a key revoked elsewhere within its recheck interval', async () => {
    const { store, raw } = await open();
    const { key, record } = await store.create({ tenantId: 'acme', name: 'agent' });
    let clock = 1_000_000;
    const cached = new CachedApiKeyStore(store, 250, 100, () => clock);
    expect((await cached.authenticate(key))?.keyId).toBe(record.keyId);
    if (adapterName === 'in memory') await store.revoke(record.keyId);
    else await raw(`UPDATE api_keys SET revoked_at = '2020-01-01T00:00:00Z' WHERE key_id = '${record.keyId}'`);
    clock += 300;
    expect(await cached.authenticate(key)).toBeNull();
  });
});

describe('CachedApiKeyStore', () => {
  it('answers from memory between checks, and never keeps an answer past a change, an expiry or a grace end (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant('auth' as const), fc.constant('revoke' as const), fc.constant('rotate' as const), fc.integer({ min: 1, max: 400 })), {
          maxLength: 25,
        }),
        async (steps) => {
          const inner = new InMemoryApiKeyStore();
          let clock = 0;
          const cached = new CachedApiKeyStore(inner, 250, 100, () => clock);
          let { key, record } = await inner.create({ tenantId: 't', name: 'k' });
          let changedAt: number | null = null;
          for (const step of steps) {
            if (typeof step === 'number') clock += step;
            else if (step === 'revoke') {
              await inner.revoke(record.keyId);
              changedAt ??= clock;
            } else if (step === 'rotate' && record.revokedAt === null && changedAt === null) {
              const rotated = await inner.rotate(record.keyId, 0);
              key = rotated.key;
              record = rotated.record;
              changedAt = null;
            } else if (step === 'auth') {
              const answer = await cached.authenticate(key);
              const truth = await inner.authenticate(key);
              // Stale only inside the recheck interval after the change.
              if (answer !== null && truth === null) expect(clock - changedAt!).toBeLessThan(250);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('PostgresApiKeyStore migrations', () => {
  it('opens a schema made by the open-time DDL of earlier versions (no migrations table): keys and counter kept, the migration recorded once', async () => {
    const schema = `rewind_keys_${randomBytes(4).toString('hex')}`;
    schemas.push(schema);
    const first = await PostgresApiKeyStore.open(pool, schema);
    const { key } = await first.create({ tenantId: 't1', name: 'old', scopes: ['read'] });
    // What earlier versions left: the same tables, without api_key_migrations.
    await pool.query(`DROP TABLE "${schema}".api_key_migrations`);
    const before = await first.changeVersion();
    const reopened = await PostgresApiKeyStore.open(pool, schema);
    expect((await reopened.authenticate(key))?.tenantId).toBe('t1');
    expect(await reopened.changeVersion()).toBeGreaterThanOrEqual(before);
    await PostgresApiKeyStore.open(pool, schema);
    const { rows } = await pool.query(`SELECT version FROM "${schema}".api_key_migrations`);
    expect(rows.map((r: { version: number }) => r.version).sort()).toEqual([1, 2]);
  });
});

describe.each([
  [
    'SQLite',
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'rewind-keys-')), 'rewind.db');
      return {
        open: async () => new SqliteApiKeyStore(file) as ApiKeyStore,
        /** What a rotation by a version before the previous-secrets table left behind. */
        rotateTheOldWay: async (keyId: string, newSecret: string) => {
          const db = new Database(file);
          db.exec("DROP TABLE api_key_previous_secrets; UPDATE schema_versions SET version = 1 WHERE store = 'api-keys'");
          db.prepare(`UPDATE api_keys SET previous_hash = hash, previous_valid_until = ?, hash = ? WHERE key_id = ?`).run(
            new Date(Date.now() + 3_600_000).toISOString(),
            hashKey(newSecret),
            keyId,
          );
          db.close();
        },
      };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `rewind_keys_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      return {
        open: async () => (await PostgresApiKeyStore.open(pool, schema)) as ApiKeyStore,
        rotateTheOldWay: async (keyId: string, newSecret: string) => {
          await pool.query(`DROP TABLE "${schema}".api_key_previous_secrets; DELETE FROM "${schema}".api_key_migrations WHERE version = 2`);
          await pool.query(
            `UPDATE "${schema}".api_keys SET previous_hash = hash, previous_valid_until = now() + interval '1 hour', hash = $2 WHERE key_id = $1`,
            [keyId, hashKey(newSecret)],
          );
        },
      };
    },
  ],
] as const)('a secret replaced before every rotation kept its own grace (%s)', (_name, setup) => {
  it('keeps working through the upgrade and a later rotation', async () => {
    const { open, rotateTheOldWay } = await setup();
    const before = await open();
    const { key: old, record } = await before.create({ tenantId: 'acme', name: 'agent' });
    await before.close();
    const newer = `rwd_${record.keyId}_${randomBytes(16).toString('hex')}`;
    await rotateTheOldWay(record.keyId, newer);
    const upgraded = await open();
    expect((await upgraded.authenticate(old))?.keyId).toBe(record.keyId);
    await upgraded.rotate(record.keyId, 0);
    expect((await upgraded.authenticate(old))?.keyId).toBe(record.keyId); // its grace from before the upgrade still runs
    expect(await upgraded.authenticate(newer)).toBeNull();
    await upgraded.close();
  });
});
