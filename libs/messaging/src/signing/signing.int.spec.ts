import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { Pool } from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASE_ADMIN_URL } from '../../../../test/support/postgres';
import { PostgresKafkaSigningSecretStore } from './postgres-signing-secret-store';
import { KEY_ID_HEADER, SIGNATURE_HEADER, signatureHeaders, signValue, verifySignature } from './envelope-signature';
import { InMemoryKafkaSigningSecretStore } from './in-memory-signing-secret-store';
import type { KafkaSigningSecretStore } from './signing-secret-store';
import { SqliteKafkaSigningSecretStore } from './sqlite-signing-secret-store';

describe('envelope signatures (HMAC-SHA256 over the raw value)', () => {
  const secret = 'a'.repeat(40);
  const value = JSON.stringify({ commandId: 'c1', type: 'PopTask', tenantId: 't', sessionId: 's' });

  it('verifies its own signature and the documented format', () => {
    const header = signValue(value, secret);
    expect(header).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verifySignature(value, header, secret)).toBe(true);
    expect(signatureHeaders(value, { keyId: 'sk_1', secret })).toEqual({ [KEY_ID_HEADER]: 'sk_1', [SIGNATURE_HEADER]: header });
  });

  it('refuses a changed value, another secret, a missing or malformed header', () => {
    const header = signValue(value, secret);
    expect(verifySignature(value.replace('PopTask', 'PushTask'), header, secret)).toBe(false);
    expect(verifySignature(value, header, 'b'.repeat(40))).toBe(false);
    expect(verifySignature(value, undefined, secret)).toBe(false);
    expect(verifySignature(value, header.slice(3), secret)).toBe(false);
    expect(verifySignature(value, 'v2=' + header.slice(3), secret)).toBe(false);
  });
});

const stores: [string, () => KafkaSigningSecretStore][] = [
  ['InMemoryKafkaSigningSecretStore', () => new InMemoryKafkaSigningSecretStore()],
  ['SqliteKafkaSigningSecretStore', () => new SqliteKafkaSigningSecretStore(join(mkdtempSync(join(tmpdir(), 'rewind-signing-')), 'rewind.db'))],
  ['PostgresKafkaSigningSecretStore', () => new PostgresKafkaSigningSecretStore(pgPool, `rewind_sk_${randomBytes(4).toString('hex')}`)],
];

const pgPool = new Pool({ connectionString: TEST_DATABASE_ADMIN_URL, max: 2 });
afterAll(async () => {
  const { rows } = await pgPool.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rewind_sk_%'`);
  for (const { nspname } of rows) await pgPool.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
  await pgPool.end();
});

for (const [name, create] of stores) {
  describe(`${name}`, () => {
    let store: KafkaSigningSecretStore;
    beforeEach(() => {
      store = create();
    });
    afterEach(() => store.close());

    it('creates a key for one tenant, finds it by id, lists it without the secret', async () => {
      const key = await store.create({ tenantId: 'acme', name: 'orders agent' });
      expect(key.keyId).toMatch(/^sk_[0-9a-f]{12}$/);
      expect(key.secret.length).toBeGreaterThanOrEqual(32);
      expect(await store.find(key.keyId)).toEqual(key);
      expect(await store.list('acme')).toEqual([
        {
          keyId: key.keyId,
          tenantId: 'acme',
          name: 'orders agent',
          createdAt: key.createdAt,
          revokedAt: null,
          expiresAt: null,
          previousSecretValidUntil: null,
        },
      ]);
      expect(await store.list('other')).toEqual([]);
      expect(await store.find('sk_unknown')).toBeNull();
    });

    it('keeps a chosen secret, refuses a short one or a bad tenant id', async () => {
      const key = await store.create({ tenantId: 'acme', secret: 'x'.repeat(32) });
      expect((await store.find(key.keyId))!.secret).toBe('x'.repeat(32));
      await expect(store.create({ tenantId: 'acme', secret: 'short' })).rejects.toThrow(/at least 32 characters/);
      await expect(store.create({ tenantId: 'bad tenant' })).rejects.toThrow(/not a valid tenant id/);
    });

    it('rotates to a new secret under the same id, the old one usable for the grace period only; an expired key is not found', async () => {
      const key = await store.create({ tenantId: 'acme' });
      const rotated = (await store.rotate(key.keyId, 3600))!;
      expect(rotated.keyId).toBe(key.keyId);
      expect(rotated.secret).not.toBe(key.secret);
      expect(await store.find(key.keyId)).toMatchObject({ secret: rotated.secret, previousSecrets: [key.secret] });
      await store.rotate(key.keyId, 0);
      // The first rotation's hour still runs; the secret replaced with no grace stopped at once.
      expect((await store.find(key.keyId))!.previousSecrets).toEqual([key.secret]);
      await expect(store.rotate(key.keyId, -5)).rejects.toThrow(/Grace period/);
      expect(await store.rotate('sk_unknown', 10)).toBeNull();
      const expired = await store.create({ tenantId: 'acme', expiresAt: '2001-01-01T00:00:00Z' });
      expect(await store.find(expired.keyId)).toBeNull();
      expect((await store.list()).find((k) => k.keyId === expired.keyId)!.expiresAt).toBe('2001-01-01T00:00:00.000Z');
      await expect(store.create({ tenantId: 'acme', expiresAt: 'soon' })).rejects.toThrow(/not a date/);
      await store.revoke(key.keyId);
      expect(await store.rotate(key.keyId, 10)).toBeNull();
    });

    it("keeps each replaced secret's own grace: a second rotation does not cut the first one's short", async () => {
      const first = await store.create({ tenantId: 'acme' });
      const second = (await store.rotate(first.keyId, 3600))!;
      const third = (await store.rotate(first.keyId, 60))!;
      expect(third.previousSecrets).toEqual([first.secret, second.secret]);
      const found = (await store.find(first.keyId))!;
      expect(found.secret).toBe(third.secret);
      expect(found.previousSecrets).toEqual([first.secret, second.secret]);
      // The record says until when the last replaced secret verifies: the first rotation's hour.
      expect(Date.parse(found.previousSecretValidUntil!)).toBeGreaterThan(Date.now() + 3_000_000);
      const fourth = (await store.rotate(first.keyId, 0))!;
      expect(fourth.previousSecrets).toEqual([first.secret, second.secret]);
      await store.revoke(first.keyId);
      expect(await store.find(first.keyId)).toBeNull();
    });

    it('stops finding a revoked key at once', async () => {
      const key = await store.create({ tenantId: 'acme' });
      expect(await store.revoke(key.keyId)).toBe(true);
      expect(await store.find(key.keyId)).toBeNull();
      expect((await store.list())[0]!.revokedAt).not.toBeNull();
      expect(await store.revoke('sk_unknown')).toBe(false);
    });
  });
}

describe('upgrade: secrets replaced before every replaced secret kept its own grace', () => {
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  const anHourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

  it('SQLite: a file of the earlier shape keeps its replaced secret for its grace, and a second rotation keeps it too', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rewind-signing-upgrade-')), 'rewind.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE kafka_signing_keys (key_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, name TEXT NOT NULL, secret TEXT NOT NULL,
      created_at TEXT NOT NULL, revoked_at TEXT, expires_at TEXT, previous_secret TEXT, previous_valid_until TEXT) WITHOUT ROWID`);
    const insert = old.prepare('INSERT INTO kafka_signing_keys VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?)');
    insert.run('sk_graced', 'acme', 'p', 'n'.repeat(40), anHourAgo(), 'o'.repeat(40), inAnHour());
    insert.run('sk_ended', 'acme', 'p', 'm'.repeat(40), anHourAgo(), 'e'.repeat(40), anHourAgo());
    old.close();
    const store = new SqliteKafkaSigningSecretStore(file);
    try {
      expect((await store.find('sk_graced'))!.previousSecrets).toEqual(['o'.repeat(40)]);
      expect((await store.find('sk_ended'))!.previousSecrets).toEqual([]);
      const rotated = (await store.rotate('sk_graced', 0))!;
      expect(rotated.previousSecrets).toEqual(['o'.repeat(40)]);
    } finally {
      await store.close();
    }
    // Opening again moves nothing twice and loses nothing.
    const again = new SqliteKafkaSigningSecretStore(file);
    expect((await again.find('sk_graced'))!.previousSecrets).toEqual(['o'.repeat(40)]);
    await again.close();
  });

  it('PostgreSQL: a schema of the earlier shape keeps its replaced secret for its grace, and a second rotation keeps it too', async () => {
    const schema = `rewind_sk_${randomBytes(4).toString('hex')}`;
    await pgPool.query(`CREATE SCHEMA "${schema}"`);
    await pgPool.query(`CREATE TABLE "${schema}".kafka_signing_keys (key_id text PRIMARY KEY, tenant_id text NOT NULL, name text NOT NULL,
      secret text NOT NULL, created_at timestamptz NOT NULL, revoked_at timestamptz, expires_at timestamptz, previous_secret text, previous_valid_until timestamptz)`);
    const insert = `INSERT INTO "${schema}".kafka_signing_keys (key_id, tenant_id, name, secret, created_at, previous_secret, previous_valid_until)
      VALUES ($1, 'acme', 'p', $2, now(), $3, $4)`;
    await pgPool.query(insert, ['sk_graced', 'n'.repeat(40), 'o'.repeat(40), inAnHour()]);
    await pgPool.query(insert, ['sk_ended', 'm'.repeat(40), 'e'.repeat(40), anHourAgo()]);
    const store = new PostgresKafkaSigningSecretStore(pgPool, schema);
    expect((await store.find('sk_graced'))!.previousSecrets).toEqual(['o'.repeat(40)]);
    expect((await store.find('sk_ended'))!.previousSecrets).toEqual([]);
    expect((await store.rotate('sk_graced', 0))!.previousSecrets).toEqual(['o'.repeat(40)]);
    const again = new PostgresKafkaSigningSecretStore(pgPool, schema);
    expect((await again.find('sk_graced'))!.previousSecrets).toEqual(['o'.repeat(40)]);
  });
});
