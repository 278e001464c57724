import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
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
      expect(await store.find(key.keyId)).toMatchObject({ secret: rotated.secret, previousSecret: key.secret });
      await store.rotate(key.keyId, 0);
      expect((await store.find(key.keyId))!.previousSecret).toBeNull();
      await expect(store.rotate(key.keyId, -5)).rejects.toThrow(/Grace period/);
      expect(await store.rotate('sk_unknown', 10)).toBeNull();
      const expired = await store.create({ tenantId: 'acme', expiresAt: '2001-01-01T00:00:00Z' });
      expect(await store.find(expired.keyId)).toBeNull();
      expect((await store.list()).find((k) => k.keyId === expired.keyId)!.expiresAt).toBe('2001-01-01T00:00:00.000Z');
      await expect(store.create({ tenantId: 'acme', expiresAt: 'soon' })).rejects.toThrow(/not a date/);
      await store.revoke(key.keyId);
      expect(await store.rotate(key.keyId, 10)).toBeNull();
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
