import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from '../support/http-client';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, item 8 (in part): /v1/memory/status showed the whole deployment's activity (global
 * positions, lag, item counts) to any `read` key. A tenant now sees how memory runs, not how
 * much everyone writes; the deployment operator sees all.
 */
describe.each(E2E_STORES)('memory status is tenant-shaped, on the %s store', (storeName) => {
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

  it('a tenant key sees no global position, lag or count; the operator does', async () => {
    const other = httpClient(t.baseUrl, (await t.http('POST', '/v1/keys', { name: 'other', scopes: ['write', 'read'], tenantId: 'other' })).body.key);
    for (let i = 0; i < 3; i++) expect((await other('POST', '/v1/sessions', { sessionId: `busy-${i}` })).status).toBe(201);
    const reader = httpClient(t.baseUrl, (await t.http('POST', '/v1/keys', { name: 'reader', scopes: ['read'], tenantId: 'tenant-a' })).body.key);
    const tenantView = await reader('GET', '/v1/memory/status');
    expect(tenantView.status).toBe(200);
    for (const global of ['checkpoint', 'lastPosition', 'lag', 'indexedItems', 'skippedEvents', 'items', 'lastError']) {
      expect(tenantView.body, global).not.toHaveProperty(global);
    }
    const operatorView = await t.http('GET', '/v1/memory/status');
    expect(operatorView.body.enabled).toBe(true); // memory is on by default: the tenant view above is a real one
    expect(operatorView.body.lastPosition).toBeGreaterThanOrEqual(3);
    expect(tenantView.body).toMatchObject({ enabled: true, state: operatorView.body.state, model: operatorView.body.model });
  });
});
