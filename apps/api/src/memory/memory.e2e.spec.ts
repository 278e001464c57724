import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyStore } from '@rewind/tenancy';
import { httpClient, type Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { sessionStreamId } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import { API_KEY_STORE, EVENT_STORE } from '../infrastructure/tokens';

// The real API with memory on (the default): the local model, the index (sqlite-vec; on PostgreSQL its tables), the indexer in-process.
describe.each(E2E_STORES)('long-term memory over HTTP on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let http: Http;
  let seq = 0;

  const newSession = async () => {
    const id = `m-${++seq}-${Date.now()}`;
    expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    return id;
  };
  const say = async (id: string, role: 'user' | 'assistant', content: string) => {
    const res = await http('POST', `/v1/sessions/${id}/messages`, { role, content });
    expect(res.status).toBe(201);
    return res.body.version as number;
  };
  /**
   * Waits (bounded) until the indexer has passed the session's last event and embedded it. (Not `lag === 0`
   * alone: on PostgreSQL the visible head may trail a commit while other suites write.)
   */
  const indexed = async (id: string) => {
    // From the store: answers no longer carry positions in the whole log (they tell other tenants' volume).
    const events = await t.app.get<EventStore>(EVENT_STORE).readStream(sessionStreamId('default', id));
    const last = events[events.length - 1]!.globalPosition;
    for (let i = 0; i < 600; i++) {
      const status = (await http('GET', '/v1/memory/status')).body;
      if (status.checkpoint >= last && status.model !== null && status.pendingVectors === 0) return status;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the memory indexer did not catch up within 30 s');
  };

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp(target.env);
    http = t.http;
  });
  afterAll(async () => {
    await t.close();
    await cleanup();
  });

  it('recalls what the session knows, forgets what was undone, and remembers it again after redo', async () => {
    const id = await newSession();
    await say(id, 'user', 'Book me a hotel in Lisbon for May');
    await say(id, 'assistant', 'I booked Hotel Avenida in Lisbon, 120 euros a night.');
    await indexed(id);
    const ask = async () => (await http('POST', `/v1/sessions/${id}/recall`, { query: 'Which hotel did we book?' })).body;
    const before = await ask();
    expect(before.query).toBe('Which hotel did we book?');
    expect(before.rewrittenQuery).toBe('Which hotel did we book?');
    expect(before.hits).toContainEqual(
      expect.objectContaining({ text: 'I booked Hotel Avenida in Lisbon, 120 euros a night.', sessionId: id, role: 'agent', version: 3 }),
    );
    expect(Object.keys(before.hits[0]).sort()).toEqual(['eventId', 'occurredAt', 'role', 'score', 'sessionId', 'text', 'version']);

    expect((await http('POST', `/v1/sessions/${id}/undo`, {})).status).toBe(200);
    expect((await ask()).hits.map((h: { text: string }) => h.text)).not.toContain('I booked Hotel Avenida in Lisbon, 120 euros a night.');
    expect((await http('POST', `/v1/sessions/${id}/redo`, {})).status).toBe(200);
    expect((await ask()).hits.map((h: { text: string }) => h.text)).toContain('I booked Hotel Avenida in Lisbon, 120 euros a night.');
  });

  it('shows the rewritten query of a vague follow-up', async () => {
    const id = await newSession();
    await say(id, 'user', 'Tell me about Hotel Avenida');
    await say(id, 'assistant', 'Hotel Avenida is on the main square; a room costs 120 euros a night.');
    await indexed(id);
    const res = await http('POST', `/v1/sessions/${id}/recall`, { query: 'what about its price?', k: 2 });
    expect(res.status).toBe(200);
    expect(res.body.rewrittenQuery).toBe("what about Hotel Avenida's price?");
    expect(res.body.hits[0].text).toMatch(/120 euros/);
  });

  it('GET …/context?recall= adds a recalled block; without it the context is unchanged', async () => {
    const id = await newSession();
    await say(id, 'user', 'My dentist appointment is on Friday at 9');
    await indexed(id);
    const plain = await http('GET', `/v1/sessions/${id}/context`);
    expect(plain.status).toBe(200);
    expect(plain.body.recalled).toBeUndefined();
    const withRecall = await http('GET', `/v1/sessions/${id}/context?maxTurns=5&recall=${encodeURIComponent('When is the dentist?')}`);
    expect(withRecall.status).toBe(200);
    expect(withRecall.body.items).toEqual(plain.body.items);
    expect(withRecall.body.recalled.query).toBe('When is the dentist?');
    expect(withRecall.body.recalled.hits[0].text).toBe('My dentist appointment is on Friday at 9');
    const bad = await http('GET', `/v1/sessions/${id}/context?recall=`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'recall', message: 'must be a question of 1 to 2000 characters' }]);
  });

  it('refuses bad input field by field, and persists nothing', async () => {
    const id = await newSession();
    for (const body of [{}, { query: '' }, { query: 'x', k: 0 }, { query: 'x', scope: 'world' }, { query: 'x', rewrite: 'yes' }, { query: 'x', extra: 1 }]) {
      const res = await http('POST', `/v1/sessions/${id}/recall`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.length).toBeGreaterThan(0);
    }
    expect((await http('PUT', `/v1/sessions/${id}/memory-policy`, { policy: 'forever' })).status).toBe(400);
    expect((await http('POST', `/v1/sessions/${id}/recall`, { query: 'x', at: 99 })).status).toBe(404);
    expect((await http('POST', '/v1/sessions/no-such-session/recall', { query: 'x' })).status).toBe(404);
  });

  it('another tenant’s session is a 404, and a tenant-wide search never returns another tenant’s items', async () => {
    const id = await newSession();
    await say(id, 'user', 'The launch code for project Falcon is 4471');
    const keys = t.app.get<ApiKeyStore>(API_KEY_STORE);
    const acme = httpClient(t.baseUrl, (await keys.create({ tenantId: `acme-${storeName}-${Date.now()}`, name: 'acme', role: 'agent' })).key);
    expect((await acme('POST', `/v1/sessions/${id}/recall`, { query: 'launch code' })).status).toBe(404);
    expect((await acme('PUT', `/v1/sessions/${id}/memory-policy`, { policy: 'none' })).status).toBe(404);
    expect((await acme('POST', '/v1/sessions', { sessionId: 'mine' })).status).toBe(201);
    await indexed(id);
    const wide = await acme('POST', '/v1/sessions/mine/recall', { query: 'launch code for project Falcon', scope: 'tenant' });
    expect(wide.status).toBe(200);
    expect(wide.body.hits).toEqual([]);
    const own = await http('POST', `/v1/sessions/${id}/recall`, { query: 'launch code for project Falcon', scope: 'tenant' });
    expect(own.body.hits.map((h: { text: string }) => h.text)).toContain('The launch code for project Falcon is 4471');
  });

  it('policy none removes the session’s items and keeps new ones out; status and /metrics report the indexer', async () => {
    const id = await newSession();
    await say(id, 'user', 'My passport number is X1234567');
    await indexed(id);
    expect((await http('POST', `/v1/sessions/${id}/recall`, { query: 'passport number' })).body.hits).toHaveLength(1);
    const set = await http('PUT', `/v1/sessions/${id}/memory-policy`, { policy: 'none' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ sessionId: id, policy: 'none', removedItems: 1 });
    await say(id, 'user', 'My second passport number is Y7654321');
    const status = await indexed(id);
    // On PostgreSQL memory is one index in the shared database (REWIND_MEMORY_INDEX defaults to postgres there).
    expect(status).toMatchObject({ enabled: true, index: storeName === 'postgres' ? 'postgres' : 'sqlite', model: 'e5-small-v2-q', dimensions: 384 });
    expect((await http('POST', `/v1/sessions/${id}/recall`, { query: 'passport number' })).body.hits).toEqual([]);
    const metrics = await http('GET', '/metrics');
    expect(String(metrics.body)).toMatch(/rewind_subscriber_lag_events\{subscriber="memory-indexer"\} \d+/);
  });
});
