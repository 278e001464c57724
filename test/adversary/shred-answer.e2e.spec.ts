import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@rewind/cli';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, item 9 (last part): shredding a session none of whose fields was encrypted answered
 * 2xx and left every word readable. Crypto-shredding only ever makes encrypted fields
 * unreadable, so the answer now says what became unreadable — and says plainly when nothing
 * did — over HTTP and in the CLI's `tenants shred`.
 */
describe.each(E2E_STORES.filter((s) => s !== 'eventstoredb'))("a shred's answer says what it made unreadable, on the %s store", (storeName) => {
  let t: TestApp;
  let env: Record<string, string>;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp(store.env);
    env = { ...store.env, REWIND_DATA_DIR: t.dataDir, REWIND_LOG_LEVEL: 'error' };
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
  });

  async function rewind(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, env });
    return { code, stdout, stderr };
  }

  it('says plainly that nothing readable was erased when nothing was encrypted', async () => {
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'plain' })).status).toBe(201);
    expect((await t.http('PUT', '/v1/sessions/plain/memory/passport', { value: 'P1234567' })).status).toBe(200);
    const shred = await t.http('POST', '/v1/sessions/plain/shred');
    expect(shred.status).toBe(200);
    expect(shred.body).toMatchObject({ sessionId: 'plain', nothingEncrypted: true, unreadableValues: 0, unreadableFields: [] });
    expect(shred.body.message).toMatch(/^Nothing in session "plain" was encrypted, so this shred erased nothing readable/);
    expect((await t.http('GET', '/v1/sessions/plain')).body.memory).toEqual({ passport: 'P1234567' }); // which is what it says
  });

  it('lists the encrypted fields that now read "[shredded]", by event and path, with their count', async () => {
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'secret' })).status).toBe(201);
    for (const key of ['ssn', 'iban']) {
      expect((await t.http('PUT', `/v1/sessions/secret/memory/${key}`, { value: `${key}-value` }, { 'rewind-encrypt': 'value' })).status).toBe(200);
    }
    expect((await t.http('PUT', '/v1/sessions/secret/memory/city', { value: 'Lisbon' })).status).toBe(200);
    const shred = await t.http('POST', '/v1/sessions/secret/shred');
    expect(shred.status).toBe(200);
    expect(shred.body).toMatchObject({
      keysDestroyed: 1,
      nothingEncrypted: false,
      unreadableValues: 2,
      unreadableFields: [{ event: 'MemoryWritten', path: 'value', values: 2 }],
    });
    expect(shred.body.message).toMatch(/^2 encrypted value\(s\) of session "secret" now read "\[shredded\]" on every read path: MemoryWritten value \(2\)/);
    expect((await t.http('GET', '/v1/sessions/secret')).body.memory).toEqual({ ssn: '[shredded]', iban: '[shredded]', city: 'Lisbon' });
  });

  it('the CLI says the same for a tenant', async () => {
    const plain = (await t.http('POST', '/v1/keys', { name: 'plain', scopes: ['write', 'read'], tenantId: 'plain-tenant' })).body.key as string;
    const headers = { authorization: `Bearer ${plain}`, 'content-type': 'application/json' };
    expect((await fetch(`${t.baseUrl}/v1/sessions`, { method: 'POST', headers, body: JSON.stringify({ sessionId: 'p' }) })).status).toBe(201);
    const run = await rewind('tenants', 'shred', '--tenant', 'plain-tenant');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Nothing in tenant "plain-tenant" was encrypted, so this shred erased nothing readable');

    const secret = await rewind('tenants', 'shred', '--tenant', 'default');
    expect(secret.code).toBe(0);
    expect(secret.stdout).toContain('2 encrypted value(s) of tenant "default" now read "[shredded]" on every read path: MemoryWritten value (2)');
  });
});
