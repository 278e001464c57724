import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, item 9 (first part): a second key rotation cut short the first rotation's grace
 * period — the stores kept one previous secret, so the agents still being redeployed with the
 * first secret were locked out by the second rotation. Every replaced secret now keeps its own
 * grace.
 */
describe.each(E2E_STORES.filter((s) => s !== 'eventstoredb'))('rotation grace is kept across rotations, on the %s store', (storeName) => {
  let t: TestApp;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp(store.env);
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
  });

  const status = async (key: string) => (await fetch(`${t.baseUrl}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } })).status;

  it("a second rotation does not cut the first one's grace short", async () => {
    const created = await t.http('POST', '/v1/keys', { name: 'agent', scopes: ['read'], tenantId: 'acme' });
    const first = created.body.key as string;
    const keyId = created.body.record.keyId as string;
    const second = await t.http('POST', `/v1/keys/${keyId}/rotate`, { graceSeconds: 3600 });
    expect(second.status).toBe(200);
    const third = await t.http('POST', `/v1/keys/${keyId}/rotate`, { graceSeconds: 0 });
    expect(third.status).toBe(200);
    expect(await status(first)).toBe(200); // its hour of grace still runs
    expect(await status(second.body.key)).toBe(401); // replaced with no grace: refused at once
    expect(await status(third.body.key)).toBe(200);
    // The key's record says until when the last replaced secret works.
    expect(Date.parse(third.body.record.previousSecretValidUntil)).toBeGreaterThan(Date.now() + 3_000_000);
  });

  it('revoking the key ends every replaced secret too', async () => {
    const created = await t.http('POST', '/v1/keys', { name: 'revoked', scopes: ['read'], tenantId: 'acme' });
    const keyId = created.body.record.keyId as string;
    await t.http('POST', `/v1/keys/${keyId}/rotate`, { graceSeconds: 3600 });
    await t.http('POST', `/v1/keys/${keyId}/rotate`, { graceSeconds: 3600 });
    expect(await status(created.body.key)).toBe(200);
    expect((await t.http('POST', `/v1/keys/${keyId}/revoke`)).status).toBeLessThan(300);
    await new Promise((resolve) => setTimeout(resolve, 400)); // caches reread the change counter every 250 ms
    expect(await status(created.body.key)).toBe(401);
  });
});
