import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStreamId } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import { type Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { EVENT_STORE } from '../infrastructure/tokens';

describe.each(E2E_STORES)('component state over HTTP on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  let store: EventStore;
  let seq = 0;
  const newSession = async () => {
    const id = `comp-${++seq}-${Date.now()}`;
    expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    return id;
  };

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp({ ...target.env, REWIND_SNAPSHOT_EVERY: '3' });
    http = t.http;
    store = t.app.get<EventStore>(EVENT_STORE);
  });
  afterAll(async () => {
    await t.close();
    await cleanup();
  });

  it('saves each component under its own name, reads it at the head and at any past version, and rollback restores it', async () => {
    const id = await newSession();
    const saved = await http('PUT', `/v1/sessions/${id}/components/cart`, { value: { items: ['tent'] } });
    expect(saved.status).toBe(200);
    const first = Number(saved.headers.get('etag')!.replaceAll('"', ''));
    expect((await http('PUT', `/v1/sessions/${id}/components/planner`, { value: { items: 'not the cart' } })).status).toBe(200);
    expect((await http('PUT', `/v1/sessions/${id}/components/cart`, { value: { items: ['tent', 'stove'] } })).status).toBe(200);

    expect((await http('GET', `/v1/sessions/${id}/components/cart`)).body).toMatchObject({ name: 'cart', value: { items: ['tent', 'stove'] } });
    expect((await http('GET', `/v1/sessions/${id}/components/planner`)).body).toMatchObject({ value: { items: 'not the cart' } });
    expect((await http('GET', `/v1/sessions/${id}/components/cart?at=${first}`)).body).toEqual({ name: 'cart', value: { items: ['tent'] }, version: first });

    expect((await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: first })).status).toBe(200);
    expect((await http('GET', `/v1/sessions/${id}/components/cart`)).body).toMatchObject({ value: { items: ['tent'] } });
    expect((await http('GET', `/v1/sessions/${id}/components/planner`)).status).toBe(404);
  });

  it('answers a bad name, a missing value or an unknown component in the documented error shape and writes nothing', async () => {
    const id = await newSession();
    const before = await store.streamVersion(sessionStreamId('default', id));
    const badName = await http('PUT', `/v1/sessions/${id}/components/${encodeURIComponent('../x')}`, { value: 1 });
    expect(badName.status).toBe(400);
    expect(badName.body.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'name' }] });
    const noValue = await http('PUT', `/v1/sessions/${id}/components/cart`, {});
    expect(noValue.status).toBe(400);
    expect(noValue.body.error.code).toBe('validation_failed');
    const unknown = await http('GET', `/v1/sessions/${id}/components/cart`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'component_not_found', message: expect.stringContaining('PUT') });
    const noSession = await http('PUT', `/v1/sessions/nope-${Date.now()}/components/cart`, { value: 1 });
    expect(noSession.status).toBe(404);
    expect(await store.streamVersion(sessionStreamId('default', id))).toBe(before);
  });
});
