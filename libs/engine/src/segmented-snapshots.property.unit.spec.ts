import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError, replay, REDUCER_VERSION, type RecordedSessionEvent } from '@rewind/domain';
import { commandsFor, intentArb, type Intent } from '@rewind/domain/testing';
import { type EventStore } from '@rewind/event-store';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository, type SessionRepositoryOptions } from './session-repository';
import { SessionService } from './session-service';
import { SegmentCache, isSegmentedHead, segmentId } from './snapshot-segments';
import { sessionStreamId } from './stream-id';

const RUNS = Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 4));
const caller = { tenantId: 't', actor: 'tester' };
const streamId = sessionStreamId('t', 's');
/** Tiny segments, so that short generated sessions seal many of them. */
const segmentSizes = { turns: 2, toolCalls: 2, timeline: 4 };

async function drive(service: SessionService, intents: readonly Intent[]): Promise<void> {
  for (const intent of intents) {
    for (const command of commandsFor(intent, await service.getState(caller, 's'))) {
      try {
        await service.execute(caller, 's', command);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        break;
      }
    }
  }
}

const events = async (store: EventStore) => (await store.readStream(streamId)) as unknown as RecordedSessionEvent[];

describe('segmented snapshots (property-based)', () => {
  it('restore equals replay at every version across branching histories, warm and after a restart (cold segment cache)', async () => {
    let segmented = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(intentArb, { minLength: 5, maxLength: 40 }),
        fc.array(intentArb, { minLength: 1, maxLength: 15 }),
        fc.integer({ min: 1, max: 8 }),
        async (first, second, stride) => {
          const store = new InMemoryEventStore();
          const options: SessionRepositoryOptions = { snapshotEvery: stride, segmentSizes, segmentCache: new SegmentCache() };
          const service = new SessionService(new SessionRepository(store, options));
          await service.startSession(caller, { sessionId: 's' });
          await drive(service, first);
          await service.repository.flushSnapshots();
          let history = await events(store);
          const warm = new SessionRepository(store, options);
          for (let v = 1; v <= history.length; v++) expect(await warm.restore(streamId, v)).toEqual(replay(history, v));

          // A restart: a fresh repository and a cold segment cache; it loads, writes on, restores again.
          const restarted = new SessionService(new SessionRepository(store, { ...options, segmentCache: new SegmentCache() }));
          await drive(restarted, second);
          await restarted.repository.flushSnapshots();
          history = await events(store);
          expect(await restarted.getState(caller, 's')).toEqual(replay(history));
          // A cache too small for one restore's segments evicts while it assembles: still exact.
          const cold = () => new SessionRepository(store, { ...options, segmentCache: new SegmentCache(stride % 2 ? 64 : undefined) });
          for (let v = 1; v <= history.length; v++) {
            const expected = replay(history, v);
            const restored = await cold().restore(streamId, v);
            expect(restored).toEqual(expected);
            // Same key order too (tool calls are listed in insertion order).
            expect(JSON.stringify(restored)).toBe(JSON.stringify(expected));
            expect(await warm.restore(streamId, v)).toEqual(expected);
            const snapshot = await store.loadSnapshot(streamId, REDUCER_VERSION, v);
            if (isSegmentedHead(snapshot?.state)) segmented++;
          }
        },
      ),
      { numRuns: RUNS },
    );
    expect(segmented).toBeGreaterThan(RUNS);
  });

  it('shares sealed segments between snapshots: each is stored once per stream', async () => {
    const store = new InMemoryEventStore();
    const saved: number[] = [];
    const save = store.saveSnapshot.bind(store);
    store.saveSnapshot = (snapshot, segments = []) => {
      saved.push(segments.length);
      return save(snapshot, segments);
    };
    const service = new SessionService(new SessionRepository(store, { snapshotEvery: 10, segmentSizes }));
    await service.startSession(caller, { sessionId: 's' });
    for (let i = 0; i < 60; i++) await service.execute(caller, 's', { type: 'RecordMessage', role: i % 2 ? 'agent' : 'user', content: `m${i}` });
    await service.repository.flushSnapshots();
    expect(saved.length).toBe(6);
    // Later snapshots send only the segments sealed since the previous one.
    expect(Math.max(...saved.slice(1))).toBeLessThan(saved.slice(1).reduce((a, b) => a + b, 0));
  });

  it('falls back to replay when a snapshot is unreadable: a missing or altered segment, or an unknown shape', async () => {
    const store = new InMemoryEventStore();
    const errors: unknown[] = [];
    const options = { snapshotEvery: 5, segmentSizes, onSnapshotError: (e: unknown) => errors.push(e) };
    const service = new SessionService(new SessionRepository(store, options));
    await service.startSession(caller, { sessionId: 's' });
    for (let i = 0; i < 12; i++) await service.execute(caller, 's', { type: 'RecordMessage', role: i % 2 ? 'agent' : 'user', content: `m${i}` });
    await service.repository.flushSnapshots();
    const history = await events(store);
    const head = (await store.loadSnapshot(streamId, REDUCER_VERSION, 10))!;
    expect(isSegmentedHead(head.state)).toBe(true);
    const fresh = () => new SessionRepository(store, { ...options, segmentCache: new SegmentCache() });

    // A segment the store does not have.
    const missing = structuredClone(head.state) as { segments: { turns: string[] } };
    missing.segments.turns.push('turns:not-stored');
    await store.saveSnapshot({ ...head, state: missing });
    expect(await fresh().restore(streamId, 12)).toEqual(replay(history, 12));
    // A segment whose content does not match its id.
    const altered = structuredClone(head.state) as { segments: { turns: string[] } };
    const id = altered.segments.turns[0]!;
    const other = new InMemoryEventStore();
    await other.saveSnapshot({ ...head, state: altered }, [{ id, data: '[]' }]);
    await other.append(streamId, await store.readStream(streamId), { expectedVersion: 'no_stream' });
    expect(await new SessionRepository(other, { ...options, segmentCache: new SegmentCache() }).restore(streamId, 12)).toEqual(replay(history, 12));
    // Not a state at all.
    await store.saveSnapshot({ ...head, state: { hello: 'world' } });
    expect(await fresh().restore(streamId, 11)).toEqual(replay(history, 11));
    expect(errors.length).toBe(3);
  });

  it('reads segmented snapshots back from SQLite, and whole-state snapshots written before segments', async () => {
    const store = new SqliteEventStore({ filename: ':memory:' });
    try {
      const options = { snapshotEvery: 7, segmentSizes };
      const service = new SessionService(new SessionRepository(store, options));
      await service.startSession(caller, { sessionId: 's' });
      for (let i = 0; i < 30; i++) await service.execute(caller, 's', { type: 'RecordMessage', role: i % 2 ? 'agent' : 'user', content: `m${i} é` });
      await service.repository.flushSnapshots();
      const history = await events(store);
      const cold = () => new SessionRepository(store, { ...options, segmentCache: new SegmentCache() });
      for (let v = 1; v <= history.length; v++) expect(await cold().restore(streamId, v)).toEqual(replay(history, v));
      // A whole-state snapshot (the format before segments) is still used.
      await store.saveSnapshot({ streamId, version: 20, reducerVersion: REDUCER_VERSION, state: replay(history, 20) });
      expect(await cold().restore(streamId, 22)).toEqual(replay(history, 22));
    } finally {
      await store.close();
    }
  });
});

describe('SegmentCache', () => {
  it('keeps decoded segments frozen, checks them against their id, and evicts the least recently used beyond its size', () => {
    const cache = new SegmentCache(35);
    const a = '[{"x":1},[2]]';
    const b = '[3,4,5,6,7,8,9,10]';
    const c = '[11,12,13,14,15,16]';
    const [idA, idB, idC] = [segmentId('turns', a), segmentId('timeline', b), segmentId('timeline', c)];
    const value = cache.add(idA, a);
    expect(Object.isFrozen(value) && Object.isFrozen(value[0]) && Object.isFrozen(value[1])).toBe(true);
    cache.add(idB, b);
    expect(cache.get(idA)).toBe(value); // now the most recently used
    cache.add(idC, c); // over 35 characters: B, least recently used, goes
    expect(cache.get(idB)).toBeUndefined();
    expect(cache.get(idA)).toEqual([{ x: 1 }, [2]]);
    expect(cache.get(idC)).toEqual([11, 12, 13, 14, 15, 16]);
    expect(() => cache.add(idA, '[{"x":2},[2]]')).toThrow(/does not match/);
    expect(() => cache.add(`memory:${idA.split(':')[1]}`, a)).toThrow(/does not match/);
  });
});
