import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConcurrencyError, IdempotencyKeyReusedError, loadSnapshotAndTail, type EventStore, type NewEvent, type StoredEvent } from '../event-store';

/**
 * Reads the global log page by page from `after` until `done` holds for what was read. On
 * PostgreSQL a page stops short while an older transaction anywhere on the server is still open
 * (other suites run beside this one), so an empty page means "not yet", until the deadline.
 */
export async function readAllUntil(
  store: EventStore,
  after: number,
  done: (seen: StoredEvent[]) => boolean,
  limit = 100,
  timeoutMs = 10_000,
): Promise<StoredEvent[]> {
  const seen: StoredEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (!done(seen)) {
    const page = await store.readAll({ after, limit });
    if (page.length === 0) {
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    seen.push(...page);
    after = page[page.length - 1]!.globalPosition;
  }
  return seen;
}

export function newEvent(type = 'MemoryWritten', data: unknown = { key: 'k', value: 1 }, parentVersion: number | null = null): NewEvent {
  return {
    eventId: randomUUID(),
    type,
    data,
    parentVersion,
    metadata: {
      tenantId: 't1',
      sessionId: 's1',
      commandId: randomUUID(),
      causationId: null,
      correlationId: randomUUID(),
      actor: 'tester',
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    },
  };
}

export interface EventStoreContractOptions {
  /**
   * The store refuses an event id already stored in any stream (default true: SQL stores and the
   * in-memory store). EventStoreDB keeps no index of event ids across streams, so it refuses a
   * repeated id only within one append.
   */
  eventIdsUniqueAcrossStore?: boolean;
}

/**
 * The one contract every event store adapter passes. `create` returns a store over an
 * empty database; `dispose` releases it.
 */
export function describeEventStoreContract(name: string, create: () => Promise<EventStore>, options: EventStoreContractOptions = {}): void {
  describe(`${name} honours the event store contract`, () => {
    let store: EventStore;
    let stream: string;
    beforeEach(async () => {
      store = await create();
      stream = `session:t1:${randomUUID()}`;
    });
    afterEach(async () => {
      await store.close();
    });

    it('appends with gapless versions starting at 1 and reads them back in order', async () => {
      const first = await store.append(stream, [newEvent(), newEvent()], { expectedVersion: 'no_stream' });
      const second = await store.append(stream, [newEvent('MemoryErased', { key: 'k' }, 2)], { expectedVersion: 2 });
      expect(first).toEqual({ streamId: stream, firstVersion: 1, lastVersion: 2, duplicate: false });
      expect(second).toMatchObject({ firstVersion: 3, lastVersion: 3 });
      const events = await store.readStream(stream);
      expect(events.map((e) => e.streamVersion)).toEqual([1, 2, 3]);
      expect(events[2]).toMatchObject({ type: 'MemoryErased', data: { key: 'k' }, parentVersion: 2, streamId: stream });
      expect(await store.streamVersion(stream)).toBe(3);
    });

    it('round-trips event data and metadata exactly', async () => {
      const event = newEvent('UserMessageReceived', { content: 'Grüße, 東京 🚀', nested: { list: [1, null, true, 'x'] }, n: 1.5 });
      await store.append(stream, [event], { expectedVersion: 'no_stream' });
      const [read] = await store.readStream(stream);
      expect(read).toMatchObject({ eventId: event.eventId, type: event.type, data: event.data, metadata: event.metadata, parentVersion: null });
    });

    it('round-trips metadata whether or not the stream id names its tenant and session, and ids of any form', async () => {
      const session = `s-${randomUUID()}`;
      const own = `session:t1:${session}`;
      const tool = `tool:t1:${randomUUID()}`;
      const derived = { ...newEvent(), eventId: `evt-${randomUUID()}` };
      derived.metadata = { ...derived.metadata, sessionId: session, correlationId: derived.metadata.commandId };
      const odd = newEvent('MemoryWritten', { k: 1 });
      odd.metadata = {
        ...odd.metadata,
        tenantId: 't2',
        commandId: 'CMD-1',
        correlationId: 'CMD-1',
        occurredAt: '2026-01-01T00:00:00+01:00',
        causationId: 'c',
        schemaVersion: 3,
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00',
      };
      const toolEvent = newEvent('ToolRegistered', { name: 'x' });
      toolEvent.metadata = { ...toolEvent.metadata, sessionId: '' };
      const upper = { ...newEvent(), eventId: randomUUID().toUpperCase() };
      // The write's trace, kept when it was sampled (the relay's publish continues it).
      upper.metadata = { ...upper.metadata, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
      // A position the store gave: reading after it finds these events (positions are sparse on some stores).
      const before = await store.lastPosition();
      await store.append(own, [derived, odd, upper], { expectedVersion: 'no_stream' });
      await store.append(tool, [toolEvent], { expectedVersion: 'no_stream' });
      const read = await store.readStream(own);
      expect(read.map((e) => [e.eventId, e.metadata])).toEqual([derived, odd, upper].map((e) => [e.eventId, e.metadata]));
      expect((await store.readStream(tool))[0]).toMatchObject({ eventId: toolEvent.eventId, metadata: toolEvent.metadata });
      const all = await readAllUntil(store, before, (seen) => seen.some((e) => e.eventId === upper.eventId));
      expect(all.find((e) => e.eventId === upper.eventId)?.metadata).toEqual(upper.metadata);
    });

    it('reads a stream from a version, to a version, with a limit', async () => {
      await store.append(
        stream,
        Array.from({ length: 10 }, () => newEvent()),
        { expectedVersion: 'any' },
      );
      expect((await store.readStream(stream, { fromVersion: 4 })).map((e) => e.streamVersion)).toEqual([4, 5, 6, 7, 8, 9, 10]);
      expect((await store.readStream(stream, { fromVersion: 4, toVersion: 6 })).map((e) => e.streamVersion)).toEqual([4, 5, 6]);
      expect((await store.readStream(stream, { fromVersion: 2, limit: 2 })).map((e) => e.streamVersion)).toEqual([2, 3]);
      expect(await store.readStream('session:t1:missing')).toEqual([]);
      expect(await store.streamVersion('session:t1:missing')).toBe(0);
    });

    it('rejects a stale expected version and writes nothing', async () => {
      await store.append(stream, [newEvent(), newEvent()], { expectedVersion: 'no_stream' });
      await expect(store.append(stream, [newEvent()], { expectedVersion: 1 })).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.append(stream, [newEvent()], { expectedVersion: 'no_stream' })).rejects.toMatchObject({ actual: 2 });
      expect(await store.streamVersion(stream)).toBe(2);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('lets exactly one of several concurrent appends at the same expected version win', async () => {
      await store.append(stream, [newEvent()], { expectedVersion: 'no_stream' });
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.append(stream, [newEvent()], { expectedVersion: 1 })));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof ConcurrencyError)).toBe(true);
      expect((await store.readStream(stream)).map((e) => e.streamVersion)).toEqual([1, 2]);
    });

    it('answers an idempotent retry with the first result and writes nothing new', async () => {
      const claim = { scope: 't1', key: `key-${randomUUID()}`, fingerprint: 'POST /x {"a":1}' };
      const first = await store.append(stream, [newEvent(), newEvent()], { expectedVersion: 'no_stream', idempotency: claim });
      const retry = await store.append(stream, [newEvent(), newEvent()], { expectedVersion: 'no_stream', idempotency: claim });
      expect(retry).toEqual({ ...first, duplicate: true });
      expect(await store.streamVersion(stream)).toBe(2);
      expect(await store.findIdempotency('t1', claim.key)).toMatchObject({ streamId: stream, firstVersion: 1, lastVersion: 2, fingerprint: claim.fingerprint });
      expect(await store.findIdempotency('another-tenant', claim.key)).toBeNull();
    });

    it('refuses an idempotency key reused for a different request', async () => {
      const claim = { scope: 't1', key: `key-${randomUUID()}`, fingerprint: 'A' };
      await store.append(stream, [newEvent()], { expectedVersion: 'any', idempotency: claim });
      await expect(store.append(stream, [newEvent()], { expectedVersion: 'any', idempotency: { ...claim, fingerprint: 'B' } })).rejects.toBeInstanceOf(
        IdempotencyKeyReusedError,
      );
      expect(await store.streamVersion(stream)).toBe(1);
    });

    it('writes a batch atomically: a failing batch leaves nothing behind', async () => {
      await store.append(stream, [newEvent()], { expectedVersion: 'no_stream' });
      const repeated = newEvent();
      await expect(store.append(stream, [repeated, newEvent(), { ...newEvent(), eventId: repeated.eventId }], { expectedVersion: 1 })).rejects.toThrow();
      expect(await store.streamVersion(stream)).toBe(1);
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    if (options.eventIdsUniqueAcrossStore ?? true)
      it('refuses an event id already stored, and writes nothing of that batch', async () => {
        const duplicateId = newEvent();
        await store.append(stream, [duplicateId], { expectedVersion: 'no_stream' });
        await expect(store.append(stream, [newEvent(), { ...newEvent(), eventId: duplicateId.eventId }], { expectedVersion: 1 })).rejects.toThrow();
        expect(await store.streamVersion(stream)).toBe(1);
        expect(await store.readStream(stream)).toHaveLength(1);
      });

    it('keeps one global order across streams, readable page by page exactly once', async () => {
      const start = await store.lastPosition();
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ stream: fc.integer({ min: 0, max: 3 }), count: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: 12 }),
          async (batches) => {
            const from = await store.lastPosition();
            const prefix = `session:t1:${randomUUID()}:`;
            for (const batch of batches) {
              await store.append(
                prefix + batch.stream,
                Array.from({ length: batch.count }, () => newEvent()),
                { expectedVersion: 'any' },
              );
            }
            const total = batches.reduce((sum, b) => sum + b.count, 0);
            const seen = (await readAllUntil(store, from, (events) => events.length >= total, 5)).map((e) => e.globalPosition);
            expect(await store.readAll({ after: seen[seen.length - 1] ?? from, limit: 5 })).toEqual([]);
            expect(seen).toHaveLength(total);
            expect([...seen].sort((a, b) => a - b)).toEqual(seen);
            expect(new Set(seen).size).toBe(total);
            for (let s = 0; s < 4; s++) {
              const versions = (await store.readStream(prefix + s)).map((e) => e.streamVersion);
              expect(versions).toEqual(versions.map((_, i) => i + 1));
            }
          },
        ),
        { numRuns: 25 },
      );
      expect(await store.lastPosition()).toBeGreaterThan(start);
    });

    it('lists streams by prefix with keyset paging', async () => {
      const prefix = `session:${randomUUID()}:`;
      for (const id of ['c', 'a', 'b']) await store.append(prefix + id, [newEvent()], { expectedVersion: 'no_stream' });
      await store.append(`session:other:${randomUUID()}`, [newEvent()], { expectedVersion: 'no_stream' });
      const page1 = await store.listStreams({ prefix, limit: 2 });
      expect(page1.map((s) => s.streamId)).toEqual([prefix + 'a', prefix + 'b']);
      const page2 = await store.listStreams({ prefix, limit: 2, after: page1[1]!.streamId });
      expect(page2.map((s) => s.streamId)).toEqual([prefix + 'c']);
      expect(page2[0]).toMatchObject({ version: 1 });
    });

    it('round-trips snapshots, picks the newest at or before a version, and ignores other reducers', async () => {
      await store.saveSnapshot({ streamId: stream, version: 10, reducerVersion: 1, state: { n: 10 } });
      await store.saveSnapshot({ streamId: stream, version: 20, reducerVersion: 1, state: { n: 20, text: 'é' } });
      await store.saveSnapshot({ streamId: stream, version: 30, reducerVersion: 2, state: { n: 30 } });
      expect(await store.loadSnapshot(stream, 1, 25)).toEqual({ streamId: stream, version: 20, reducerVersion: 1, state: { n: 20, text: 'é' } });
      expect(await store.loadSnapshot(stream, 1, 19)).toMatchObject({ version: 10 });
      expect(await store.loadSnapshot(stream, 1, 9)).toBeNull();
      expect(await store.loadSnapshot(stream, 3, 100)).toBeNull();
      expect(await store.loadSnapshot(stream, 2, 100)).toMatchObject({ version: 30, state: { n: 30 } });
    });

    it('reads the nearest snapshot and the events after it in one call, as loadSnapshot then readStream would', async () => {
      await store.append(
        stream,
        Array.from({ length: 12 }, (_, i) => newEvent('MemoryWritten', { key: `k${i}`, value: i }, i === 0 ? null : i)),
        {
          expectedVersion: 'no_stream',
        },
      );
      await store.saveSnapshot({ streamId: stream, version: 5, reducerVersion: 1, state: { n: 5 } });
      await store.saveSnapshot({ streamId: stream, version: 10, reducerVersion: 1, state: { n: 10, text: 'é' } });
      await store.saveSnapshot({ streamId: stream, version: 8, reducerVersion: 2, state: { n: 8 } });
      const expected = async (reducer: number, v: number) => {
        const snapshot = await store.loadSnapshot(stream, reducer, v);
        return { snapshot, events: await store.readStream(stream, { fromVersion: (snapshot?.version ?? 0) + 1, toVersion: v }) };
      };
      for (const [reducer, v] of [
        [1, 12],
        [1, 10],
        [1, 9],
        [1, 4],
        [2, 9],
        [3, 12],
        [1, 0],
        [1, 1000],
      ] as const) {
        const read = await loadSnapshotAndTail(store, stream, reducer, v);
        expect(read).toEqual(await expected(reducer, v));
        if (store.loadSnapshotAndTail) expect(await store.loadSnapshotAndTail(stream, reducer, v)).toEqual(read);
      }
      expect((await loadSnapshotAndTail(store, stream, 1, 12)).events.map((e) => e.streamVersion)).toEqual([11, 12]);
      expect((await loadSnapshotAndTail(store, stream, 1, 10)).events).toEqual([]);
      expect(await loadSnapshotAndTail(store, `session:t1:${randomUUID()}`, 1, 10)).toEqual({ snapshot: null, events: [] });
    });

    it('stores snapshot segments once per stream and returns the ones asked for', async () => {
      if (!store.loadSnapshotSegments) return;
      const big = 'x'.repeat(100_000) + 'é';
      await store.saveSnapshot({ streamId: stream, version: 10, reducerVersion: 1, state: { refs: ['a', 'b'] } }, [
        { id: 'a', data: '["first"]' },
        { id: 'b', data: big },
      ]);
      // Ids name contents: a second write of an id keeps the first.
      await store.saveSnapshot({ streamId: stream, version: 20, reducerVersion: 1, state: { refs: ['a', 'c'] } }, [
        { id: 'a', data: '["ignored"]' },
        { id: 'c', data: '[3]' },
      ]);
      expect(await store.loadSnapshot(stream, 1, 15)).toMatchObject({ version: 10, state: { refs: ['a', 'b'] } });
      const found = await store.loadSnapshotSegments(stream, ['a', 'b', 'c', 'missing']);
      expect(Object.fromEntries(found)).toEqual({ a: '["first"]', b: big, c: '[3]' });
      expect((await store.loadSnapshotSegments(`session:t1:${randomUUID()}`, ['a'])).size).toBe(0);
      expect((await store.loadSnapshotSegments(stream, [])).size).toBe(0);
    });
  });
}
