import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '@rewind/event-store';
import { hashKey, type ApiKeyStore } from '@rewind/tenancy';
import { httpClient, type Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { API_KEY_STORE, EVENT_STORE } from '../infrastructure/tokens';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(E2E_STORES)('API keys on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let a: TestApp;
  /** A second API process on the same store, with its own key cache. */
  let b: TestApp;
  let admin: Http;
  const keyFor = async (scopes: string[], tenantId = 'default') => {
    const res = await admin('POST', '/v1/keys', { name: `${scopes.join('+')} key`, scopes, tenantId });
    expect(res.status).toBe(201);
    return res.body as { key: string; record: { keyId: string; scopes: string[] } };
  };

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    a = await startTestApp({ ...target.env, REWIND_RATE_LIMIT_PER_SECOND: '0' });
    b = await startTestApp({ ...target.env, REWIND_DATA_DIR: a.dataDir, REWIND_ADMIN_KEY: a.adminKey, REWIND_RATE_LIMIT_PER_SECOND: '0' });
    admin = a.http;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await cleanup();
  });

  it('scopes decide what a key may do: read reads, write writes, audit reads the audit log, admin manages keys', async () => {
    expect((await admin('POST', '/v1/sessions', { sessionId: 'scoped', title: 'scopes' })).status).toBe(201);
    const read = httpClient(a.baseUrl, (await keyFor(['read'])).key);
    const write = httpClient(a.baseUrl, (await keyFor(['write'])).key);
    const audit = httpClient(a.baseUrl, (await keyFor(['audit'])).key);
    const agent = httpClient(a.baseUrl, (await keyFor(['write', 'read'])).key);

    expect((await read('GET', '/v1/sessions/scoped')).status).toBe(200);
    const refused = await read('POST', '/v1/sessions/scoped/messages', { role: 'user', content: 'hi' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_scope', message: expect.stringContaining('needs "write"') });
    expect((await read('GET', '/v1/audit')).status).toBe(403);

    expect((await write('POST', '/v1/sessions/scoped/messages', { role: 'user', content: 'hi' })).status).toBe(201);
    expect((await write('GET', '/v1/sessions/scoped')).status).toBe(403);

    expect((await audit('GET', '/v1/audit')).status).toBe(200);
    expect((await audit('GET', '/v1/sessions/scoped/events')).status).toBe(200);
    expect((await audit('PUT', '/v1/sessions/scoped/memory/k', { value: 1 })).status).toBe(403);

    for (const client of [read, write, audit, agent]) {
      expect((await client('GET', '/v1/keys')).status).toBe(403);
      expect((await client('POST', '/v1/keys', { name: 'escalate', scopes: ['admin'] })).status).toBe(403);
      // Global log positions tell one tenant how much all tenants write: admin only.
      expect((await client('GET', '/v1/projections')).status).toBe(403);
    }
    expect((await admin('GET', '/v1/projections')).status).toBe(200);
  });

  it("events record the key's id as actor, never anything derived from the secret", async () => {
    const { key, record } = await keyFor(['write', 'read']);
    const agent = httpClient(a.baseUrl, key);
    expect((await agent('POST', '/v1/sessions', { sessionId: 'actors', title: 'actors' })).status).toBe(201);
    expect((await admin('POST', '/v1/sessions/actors/messages', { role: 'user', content: 'from the admin' })).status).toBe(201);
    const events = (await admin('GET', '/v1/sessions/actors/events')).body.events as { metadata: { actor: string } }[];
    const actors = events.map((e) => e.metadata.actor);
    expect(actors[0]).toBe(`key:${record.keyId}`);
    const adminActor = actors[1]!;
    expect(adminActor).toMatch(/^key:[0-9a-f]{12}$/);
    expect(adminActor).not.toBe(`key:${hashKey(a.adminKey).slice(0, 12)}`);
    const keys = (await admin('GET', '/v1/keys')).body.items as { keyId: string; name: string }[];
    expect(keys.find((k) => `key:${k.keyId}` === adminActor)?.name).toContain('REWIND_ADMIN_KEY');
    const raw = await a.app.get<EventStore>(EVENT_STORE).readStream('session:default:actors');
    expect(JSON.stringify(raw)).not.toContain(hashKey(a.adminKey).slice(0, 12));
  });

  it('a key revoked through one process is refused by another within a second', async () => {
    const { key, record } = await keyFor(['read']);
    const viaB = httpClient(b.baseUrl, key);
    expect((await viaB('GET', '/v1/sessions')).status).toBe(200); // now in B's cache
    const revoked = await admin('POST', `/v1/keys/${record.keyId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect((await httpClient(a.baseUrl, key)('GET', '/v1/sessions')).status).toBe(401);
    await sleep(1000); // the promised bound
    const refused = await viaB('GET', '/v1/sessions');
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toContain('revoked or expired');
  });

  it('rotation keeps the key id; each old secret works for its own grace period, or not at all with 0', async () => {
    const { key: old, record } = await keyFor(['read']);
    const rotated = await admin('POST', `/v1/keys/${record.keyId}/rotate`, { graceSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.record).toMatchObject({ keyId: record.keyId, previousSecretValidUntil: expect.any(String) });
    const fresh = rotated.body.key as string;
    expect((await httpClient(a.baseUrl, fresh)('GET', '/v1/sessions')).status).toBe(200);
    expect((await httpClient(a.baseUrl, old)('GET', '/v1/sessions')).status).toBe(200);
    const again = await admin('POST', `/v1/keys/${record.keyId}/rotate`, { graceSeconds: 0 });
    expect(again.status).toBe(200);
    expect((await httpClient(a.baseUrl, fresh)('GET', '/v1/sessions')).status).toBe(401);
    expect((await httpClient(a.baseUrl, old)('GET', '/v1/sessions')).status).toBe(200); // the first rotation's hour still runs
    expect((await httpClient(a.baseUrl, again.body.key)('GET', '/v1/sessions')).status).toBe(200);
  });

  it('an expiry set on a key is honoured, and clearing it restores the key', async () => {
    const { key, record } = await keyFor(['read']);
    const client = httpClient(a.baseUrl, key);
    expect((await client('GET', '/v1/sessions')).status).toBe(200);
    expect((await admin('PUT', `/v1/keys/${record.keyId}/expiry`, { expiresAt: '2001-01-01T00:00:00Z' })).status).toBe(200);
    expect((await client('GET', '/v1/sessions')).status).toBe(401);
    expect((await admin('PUT', `/v1/keys/${record.keyId}/expiry`, { expiresAt: null })).status).toBe(200);
    expect((await client('GET', '/v1/sessions')).status).toBe(200);
  });

  it('bad lifecycle requests get the documented error shape and change nothing', async () => {
    const before = (await admin('GET', '/v1/keys?tenantId=*')).body.items.length;
    const badScope = await admin('POST', '/v1/keys', { name: 'x', scopes: ['root'] });
    expect(badScope.status).toBe(400);
    expect(badScope.body.error.code).toBe('validation_failed');
    expect((await admin('POST', '/v1/keys', { name: 'x', expiresAt: 'tomorrow' })).status).toBe(400);
    expect((await admin('POST', '/v1/keys', { name: '' })).status).toBe(400);
    const unknown = await admin('POST', '/v1/keys/nosuchkey000/revoke');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'api_key_not_found', message: expect.stringContaining('nosuchkey000'), details: [] });
    expect((await admin('POST', '/v1/keys/nosuchkey000/rotate', { graceSeconds: -1 })).status).toBe(400);
    const { record } = await keyFor(['read']);
    await admin('POST', `/v1/keys/${record.keyId}/revoke`);
    const rotateRevoked = await admin('POST', `/v1/keys/${record.keyId}/rotate`, {});
    expect(rotateRevoked.status).toBe(409);
    expect(rotateRevoked.body.error.code).toBe('api_key_revoked');
    expect((await admin('GET', '/v1/keys?tenantId=*')).body.items.length).toBe(before + 1);
  });
});

describe('rate limits per key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REWIND_RATE_LIMIT_PER_SECOND: '1', REWIND_RATE_LIMIT_BURST: '3' });
  });
  afterAll(() => t?.close());

  it('answers 429 with Retry-After in the documented shape once a key spent its burst; other keys are unaffected', async () => {
    const statuses: number[] = [];
    let last = null as Awaited<ReturnType<Http>> | null;
    for (let i = 0; i < 5; i++) {
      last = await t.http('GET', '/v1/tools');
      statuses.push(last.status);
    }
    // One token may refill while the five requests run; never more than burst + 1 pass.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last!.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('retry after'), details: [] });
    // The admin key's bucket is spent: create the other key in the store directly.
    const { key } = await t.app.get<ApiKeyStore>(API_KEY_STORE).create({ tenantId: 'default', name: 'other', scopes: ['read'] });
    expect((await httpClient(t.baseUrl, key)('GET', '/v1/tools')).status).toBe(200);
  });
});
