import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { httpClient } from '../../../../test/support/http-client';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

describe('Kafka signing keys over HTTP (admin)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('creates a key whose secret the worker verifies with, lists it without secrets, and revokes it', async () => {
    const created = await t.http('POST', '/v1/signing-keys', { tenantId: 'acme', name: 'orders producer' });
    expect(created.status).toBe(201);
    expect(created.body.record).toMatchObject({ tenantId: 'acme', name: 'orders producer', revokedAt: null, expiresAt: null });
    const { keyId } = created.body.record;

    // Where the worker reads it (the same data file): the secret the answer showed is the one that verifies.
    const store = new SqliteKafkaSigningSecretStore(join(t.dataDir, 'rewind.db'));
    try {
      const found = await store.find(keyId);
      expect(found?.secret).toBe(created.body.secret);

      const listed = await t.http('GET', '/v1/signing-keys?tenantId=acme');
      expect(listed.status).toBe(200);
      expect(listed.body.items).toEqual([expect.objectContaining({ keyId, tenantId: 'acme' })]);
      expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
      expect((await t.http('GET', '/v1/signing-keys')).body.items).toEqual([]);

      const revoked = await t.http('POST', `/v1/signing-keys/${keyId}/revoke`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revokedAt).toEqual(expect.any(String));
      expect(await store.find(keyId)).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('answers 404 for an unknown key, 400 for bad input, and 403 to a key without the admin scope', async () => {
    const missing = await t.http('POST', '/v1/signing-keys/sk_nope/revoke');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('signing_key_not_found');
    const bad = await t.http('POST', '/v1/signing-keys', { tenantId: '../etc', expiresAt: 'tomorrow' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['expiresAt', 'tenantId']);
    const writer = (await t.http('POST', '/v1/keys', { name: 'writer', scopes: ['write', 'read'] })).body.key as string;
    const refused = await httpClient(t.baseUrl, writer)('POST', '/v1/signing-keys', { tenantId: 'acme' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
  });
});
