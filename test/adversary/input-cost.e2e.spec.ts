import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandRejection, decodeCommand, InMemoryKafkaSigningSecretStore, signatureHeaders } from '@rewind/messaging';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, item 4: an ~800 KB body holding one object with 60 000 keys blocked the event loop
 * for seconds before the session was even looked up. Shapes are now counted on the raw text,
 * in one linear pass, before anything parses them.
 */
const wideObject = (keys: number) => `{${Array.from({ length: keys }, (_, i) => `"key-${i}":1`).join(',')}}`;

describe.each(E2E_STORES)('input cost stays linear in input size, on the %s store', (storeName) => {
  let t: TestApp;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp(store.env);
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'wide' })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
  });

  it('refuses one object of 60 000 keys (~800 KB) with 413 in the documented shape, persisting nothing', async () => {
    const body = `{"value":${wideObject(60_000)}}`;
    expect(body.length).toBeGreaterThan(750_000);
    expect(body.length).toBeLessThan(1_048_576); // within REWIND_MAX_BODY_BYTES: the shape, not the size, is refused
    const res = await t.http('PUT', '/v1/sessions/wide/memory/big', body);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'payload_too_large', details: expect.any(Array) });
    expect(res.body.error.message).toMatch(/more than 10000 keys \(REWIND_MAX_JSON_KEYS_PER_OBJECT\)/);
    expect((await t.http('GET', '/v1/sessions/wide')).body.version).toBe(1);
  });

  it('refuses too many values in all (many small objects), and accepts a wide object within the limits', async () => {
    const many = `{"value":[${Array.from({ length: 210_000 }, () => '0').join(',')}]}`;
    const res = await t.http('PUT', '/v1/sessions/wide/memory/many', many);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/more than 200000 values \(REWIND_MAX_JSON_NODES\)/);
    expect((await t.http('PUT', '/v1/sessions/wide/memory/fine', `{"value":${wideObject(5_000)}}`)).status).toBe(200);
  });
});

describe('input cost of Kafka commands', () => {
  it('refuses a signed command holding one object of 60 000 keys before parsing it', async () => {
    const keys = new InMemoryKafkaSigningSecretStore();
    const key = await keys.create({ tenantId: 'acme' });
    const value = `{"commandId":"c1","type":"RecordMessage","tenantId":"acme","sessionId":"s","payload":{"role":"user","content":"hi","metadata":${wideObject(60_000)}}}`;
    const refused = await decodeCommand(value, signatureHeaders(value, key), keys).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CommandRejection);
    expect(refused).toMatchObject({ code: 'validation_failed', details: [{ field: '(value)' }] });
    expect((refused as Error).message).toMatch(/more than 10000 keys/);
  });
});
