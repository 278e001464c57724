import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TravelService } from '@rewind/demo';
import { E2E_STORES, storeEnv } from '../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../test/support/test-app';
import { createRewindClient, ifMatch, isRewindError, RewindError, versionOf, type RewindClient } from './index';
import { FaultyProxy } from './testing/faulty-proxy';

describe.each(E2E_STORES)('@rewind/client against the real server on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let client: RewindClient;
  let travel: TravelService;
  let proxy: FaultyProxy;
  let proxied: RewindClient;
  const fast = { baseDelayMs: 1, maxDelayMs: 5 };

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    t = await startTestApp(target.env);
    client = createRewindClient({ baseUrl: t.baseUrl, apiKey: t.adminKey, retry: fast });
    travel = new TravelService();
    await travel.start();
    proxy = new FaultyProxy(t.baseUrl);
    await proxy.start();
    proxied = createRewindClient({ baseUrl: proxy.url, apiKey: t.adminKey, retry: fast });
    await client.registerTool('book_hotel', {
      kind: 'reversible',
      compensation: { channel: 'http', target: `${travel.url}/hotels/{{output.bookingId}}/cancel` },
      retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000 },
    });
  });
  afterAll(async () => {
    await proxy.stop();
    await travel.stop();
    await t.close();
    await cleanup();
  });

  const newSession = async () => (await client.startSession({ sessionId: `sdk-${randomUUID().slice(0, 8)}`, title: 'SDK' })).sessionId;

  it('records an agent session with typed calls, and says which version is a node to return to', async () => {
    const id = await newSession();
    const message = await client.recordMessage(id, { role: 'user', content: 'Book a hotel in Lisbon' });
    expect(message).toMatchObject({ version: 2, head: 2, stepVersion: 2, duplicate: false });
    await client.writeMemory(id, 'city', 'Lisbon'); // any JSON: a plain string
    await client.setContextVariable(id, 'nights', 3);
    const checkpoint = await client.createCheckpoint(id, 'before-booking');
    expect(checkpoint).toMatchObject({ version: 5, head: 4, stepVersion: null });
    const state = await client.getSession(id);
    expect(state).toMatchObject({ version: 5, head: 4, memory: { city: 'Lisbon' }, contextVars: { nights: 3 } });
    expect(state.checkpoints).toEqual([{ label: 'before-booking', version: 4, createdVersion: 5 }]);
    expect((await client.getSessionState(id, 2)).memory).toEqual({});
    expect((await client.getTimeline(id)).nodes.map((n) => n.version)).toEqual([1, 2, 3, 4]);
    expect((await client.listEvents(id, { from: 5 })).events.map((e) => e.type)).toEqual(['CheckpointCreated']);
    expect((await client.getDiff(id, 2, 4)).changes.map((c) => c.path)).toEqual(expect.arrayContaining(['memory.city']));
    expect((await client.getContext(id)).items).toHaveLength(1);
    const recalled = await client.recall(id, { query: 'Where is the hotel?', k: 3 });
    expect(recalled).toMatchObject({ query: 'Where is the hotel?', hits: expect.any(Array) });
  });

  it('waits for a rollback that compensates a real booking, and types the refusal of a redo over it', async () => {
    const id = await newSession();
    await client.startToolCall(id, { toolCallId: 'h1', tool: 'book_hotel', input: { city: 'Lisbon' } });
    const booking = (await (await fetch(`${travel.url}/hotels`, { method: 'POST', body: '{"city":"Lisbon"}' })).json()) as { bookingId: string };
    await client.succeedToolCall(id, 'h1', booking);
    expect((await client.planRollback(id, { toVersion: 1 })).toCompensate.map((e) => e.toolCallId)).toEqual(['h1']);

    const moved = await client.rollback(id, { toVersion: 1 });
    expect(moved.rollbackId).toEqual(expect.any(String));
    const rollback = await client.waitForRollback(moved.rollbackId!, { intervalMs: 20 });
    expect(rollback).toMatchObject({ status: 'completed', toVersion: 1, effects: [{ toolCallId: 'h1', status: 'compensated' }] });
    expect(travel.bookings.get(booking.bookingId)?.status).toBe('cancelled');
    expect((await client.getSession(id)).head).toBe(1);

    const redo = await client.redo(id).catch((error: unknown) => error);
    expect(isRewindError(redo, 'compensated_effects_on_path')).toBe(true);
    expect(redo).toMatchObject({ status: 409, details: [expect.objectContaining({ toolCallId: 'h1' })] });
  });

  it('pins writes with If-Match and reports a conflict with the current version; refusals are typed by code', async () => {
    const id = await newSession();
    const { version } = await client.writeMemory(id, 'a', 1);
    const stale = await client.writeMemory(id, 'a', 2, { ifMatch: version - 1 }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(RewindError);
    expect(stale).toMatchObject({ status: 409, code: 'version_conflict', currentVersion: version });
    expect((await client.writeMemory(id, 'a', 2, { ifMatch: ifMatch(version) })).version).toBe(version + 1);
    expect(versionOf(ifMatch(12))).toBe(12);
    expect(versionOf('W/"7"')).toBe(7);

    const missing = await client.getSession(`nobody-${id}`).catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, code: 'session_not_found' });
    const invalid = await client.recordMessage(id, { role: 'user', content: 42 as unknown as string }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed', details: [expect.objectContaining({ field: 'content' })] });
    expect((await client.getSession(id)).version).toBe(version + 1);
  });

  it('retries a write whose answer was lost (503, a cut connection) with the same Idempotency-Key: applied once', async () => {
    const id = await newSession();
    const before = proxy.seen.length;
    proxy.inject('lose-answer', 'drop-connection');
    const result = await proxied.recordMessage(id, { role: 'user', content: 'only once' });
    const attempts = proxy.seen.slice(before);
    expect(attempts.map((a) => a.fault)).toEqual(['lose-answer', 'drop-connection', null]);
    expect(new Set(attempts.map((a) => a.idempotencyKey)).size).toBe(1);
    expect(attempts[0]!.idempotencyKey).toEqual(expect.any(String));
    expect(result).toMatchObject({ version: 2, duplicate: true });
    const state = await client.getSession(id);
    expect(state.version).toBe(2);
    expect(state.conversation.turns.flatMap((turn) => turn.messages.map((m) => m.content))).toEqual(['only once']);

    // Another logical write gets another key.
    await proxied.recordMessage(id, { role: 'agent', content: 'answer' });
    expect(proxy.seen[proxy.seen.length - 1]!.idempotencyKey).not.toBe(attempts[0]!.idempotencyKey);
  });

  it('honours 429 with Retry-After, and gives up after the configured attempts with the typed error', async () => {
    const id = await newSession();
    const before = proxy.seen.length;
    proxy.inject('too-many-requests');
    expect((await proxied.writeMemory(id, 'k', { nested: [1, 'two', null] })).duplicate).toBe(false);
    expect(proxy.seen.slice(before).map((a) => a.fault)).toEqual(['too-many-requests', null]);

    const impatient = createRewindClient({ baseUrl: proxy.url, apiKey: t.adminKey, retry: { ...fast, attempts: 2 } });
    proxy.inject('lose-answer', 'lose-answer');
    const error = await impatient.writeMemory(id, 'k', 2).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, code: 'store_unavailable' });
    // Both attempts reached the server with one key: the write is applied once, and a retry by hand with that key is safe.
    expect((await client.getSession(id)).version).toBe(3);
  });
});
