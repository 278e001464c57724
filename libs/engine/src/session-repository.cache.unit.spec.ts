import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { DomainError, replay, type RecordedSessionEvent } from '@rewind/domain';
import { commandsFor, intentArb } from '@rewind/domain/testing';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository, type SessionRepositoryOptions } from './session-repository';
import { snapshotSpacing } from './snapshot-cadence';
import { SessionService } from './session-service';
import { SegmentCache } from './snapshot-segments';
import { sessionStreamId } from './stream-id';

const caller = { tenantId: 't', actor: 'tester' };

/** Writes `messages` messages to session `id` and returns its state's version. */
async function session(service: SessionService, id: string, messages: number): Promise<number> {
  await service.startSession(caller, { sessionId: id });
  for (let i = 0; i < messages; i++) await service.execute(caller, id, { type: 'RecordMessage', role: 'user', content: `message ${i}` });
  return (await service.getState(caller, id)).version;
}

describe('the current-state cache is bounded by events, not only by sessions', () => {
  it('keeps sessions whose states fit the events budget, and restores the least recently used one that did not', async () => {
    const store = new InMemoryEventStore();
    let restores = 0;
    // No residency window: a was used a moment ago, and this is about the events budget alone.
    const repository = new SessionRepository(store, { snapshotEvery: 0, cacheEvents: 50, cacheResidencyMs: 0, onRestored: () => restores++ });
    const service = new SessionService(repository);
    const a = await session(service, 'a', 30);
    const written = structuredClone(await service.getState(caller, 'a'));
    const b = await session(service, 'b', 30);
    expect(a + b).toBeGreaterThan(50);
    // Only b's state is held now: the cache counts its events (what /metrics reports as rewind_state_cache_events).
    expect(repository.cachedSessions).toBe(1);
    expect(repository.cachedEvents).toBe(b);
    // b's state is the newest and fits: no restore to read it.
    restores = 0;
    await service.getState(caller, 'b');
    expect(restores).toBe(0);
    // a's state went out when b's came in (31 + 31 events > 50): it is restored, and equal to what was written.
    const restored = await service.getState(caller, 'a');
    expect(restores).toBe(1);
    expect(restored.version).toBe(a);
    expect(restored).toEqual(written);
  });

  it('with a budget that holds both, reads neither from the store again', async () => {
    const store = new InMemoryEventStore();
    let restores = 0;
    const service = new SessionService(new SessionRepository(store, { snapshotEvery: 0, cacheEvents: 1_000, onRestored: () => restores++ }));
    await session(service, 'a', 30);
    await session(service, 'b', 30);
    restores = 0;
    await service.getState(caller, 'a');
    await service.getState(caller, 'b');
    expect(restores).toBe(0);
    expect(service.repository.cachedEvents).toBe((await service.getState(caller, 'a')).version + (await service.getState(caller, 'b')).version);
  });
});

describe('a retried idempotent write is answered from the cache when nothing came after it', () => {
  it('restores nothing for a retry of the last write, and restores the written version (not the newest) for an older one', async () => {
    const repository = new SessionRepository(new InMemoryEventStore(), { snapshotEvery: 0, cacheEvents: 1_000 });
    const service = new SessionService(repository);
    const restore = vi.spyOn(repository, 'restore');
    await session(service, 's', 3);
    const command = { type: 'RecordMessage', role: 'user', content: 'once' } as const;
    const first = await service.execute(caller, 's', command, { idempotencyKey: 'k' });
    restore.mockClear();
    const retry = await service.execute(caller, 's', command, { idempotencyKey: 'k' });
    expect(restore).not.toHaveBeenCalled();
    expect(retry).toEqual({ ...first, duplicate: true });
    await service.execute(caller, 's', { type: 'RecordMessage', role: 'agent', content: 'later' });
    const late = await service.execute(caller, 's', command, { idempotencyKey: 'k' });
    expect(restore).toHaveBeenCalledTimes(1);
    expect(restore.mock.calls[0]![1]).toBe(first.version);
    expect(late).toEqual({ ...first, duplicate: true });
  });
});

const sessions = ['a', 'b', 'c'];

/** Three sessions of ~15 events under a 50-event budget, then a message to each in turn for 10 rounds: how many restores. */
async function restoresInRoundRobin(options: Partial<SessionRepositoryOptions>): Promise<{ restores: number; cachedSessions: number }> {
  let restores = 0;
  const repository = new SessionRepository(new InMemoryEventStore(), { snapshotEvery: 0, cacheEvents: 50, onRestored: () => restores++, ...options });
  const service = new SessionService(repository);
  for (const sessionId of sessions) {
    await service.startSession(caller, { sessionId });
    for (let i = 0; i < 14; i++) await service.execute(caller, sessionId, { type: 'RecordMessage', role: 'user', content: `setup ${i}` });
  }
  restores = 0;
  for (let round = 0; round < 10; round++) {
    for (const sessionId of sessions) await service.execute(caller, sessionId, { type: 'RecordMessage', role: 'agent', content: `round ${round}` });
  }
  const counted = { restores, cachedSessions: repository.cachedSessions };
  // A state left out of the cache is folded in place by its own write: what every session holds is still its replay.
  for (const sessionId of sessions) {
    const events = (await repository.store.readStream(sessionStreamId('t', sessionId))) as unknown as RecordedSessionEvent[];
    expect(await repository.restore(sessionStreamId('t', sessionId), events.length)).toEqual(replay(events));
    expect(await service.getState(caller, sessionId)).toEqual(replay(events));
  }
  return counted;
}

describe('more active sessions than the budget holds', () => {
  it('keeps the states that fit when more sessions are active than it holds: the others are restored, not every one in turn', async () => {
    const kept = await restoresInRoundRobin({});
    // One session no longer fits and is restored on each use; the two that fit stay cached.
    expect(kept.cachedSessions).toBe(2);
    expect(kept.restores).toBeLessThanOrEqual(10);
    // Least recently used eviction alone (no residency): each session is evicted just before its turn.
    const lru = await restoresInRoundRobin({ cacheResidencyMs: 0 });
    expect(lru.restores).toBeGreaterThanOrEqual(20);
  });

  it('still makes room for a new session by evicting states unused for the residency window', async () => {
    let restores = 0;
    const repository = new SessionRepository(new InMemoryEventStore(), {
      snapshotEvery: 0,
      cacheEvents: 20,
      cacheResidencyMs: 20,
      onRestored: () => restores++,
    });
    const service = new SessionService(repository);
    await service.startSession(caller, { sessionId: 'old' });
    for (let i = 0; i < 12; i++) await service.execute(caller, 'old', { type: 'RecordMessage', role: 'user', content: `old ${i}` });
    await new Promise((resolve) => setTimeout(resolve, 40));
    await service.startSession(caller, { sessionId: 'new' });
    for (let i = 0; i < 12; i++) await service.execute(caller, 'new', { type: 'RecordMessage', role: 'user', content: `new ${i}` });
    expect(repository.cachedSessions).toBe(1);
    const before = restores;
    await service.execute(caller, 'new', { type: 'RecordMessage', role: 'agent', content: 'cached' });
    expect(restores).toBe(before);
  });
});

describe('sessions outgrowing the cache, with segmented snapshots (property-based)', () => {
  it('every snapshot written while states are restored, left out, folded in place and registered late restores to the replay', async () => {
    const segmentSizes = { turns: 2, toolCalls: 2, timeline: 4 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...sessions), intentArb), { minLength: 10, maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        async (writes, stride) => {
          const store = new InMemoryEventStore();
          // A budget of ~25 events for three sessions: most writes restore a state that is then left out of the cache.
          const options: SessionRepositoryOptions = { snapshotEvery: stride, segmentSizes, segmentCache: new SegmentCache(), cacheEvents: 25 };
          const service = new SessionService(new SessionRepository(store, options));
          for (const sessionId of sessions) await service.startSession(caller, { sessionId });
          for (const [sessionId, intent] of writes) {
            for (const command of commandsFor(intent, await service.getState(caller, sessionId))) {
              try {
                await service.execute(caller, sessionId, command);
              } catch (error) {
                if (!(error instanceof DomainError)) throw error;
                break;
              }
            }
          }
          await service.repository.flushSnapshots();
          const fresh = new SessionRepository(store, { ...options, segmentCache: new SegmentCache() });
          for (const sessionId of sessions) {
            const streamId = sessionStreamId('t', sessionId);
            const events = (await store.readStream(streamId)) as unknown as RecordedSessionEvent[];
            for (let v = 1; v <= events.length; v++) expect(await fresh.restore(streamId, v)).toEqual(replay(events, v));
          }
        },
      ),
      { numRuns: Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 10)) },
    );
  });
});

describe('a restored state whose tail changed a sealed segment', () => {
  const segmentSizes = { turns: 2, toolCalls: 2, timeline: 4 };
  const start = (toolCallId: string) =>
    ({ type: 'StartToolCall', toolCallId, tool: 'search', input: { q: toolCallId }, effect: { kind: 'none' }, confirmed: true }) as const;

  /** v1 start, v2–v4 three tool calls (c1 and c2 seal a segment), v5 a message: snapshot at 5; v6 completes c1 (the tail). */
  async function writtenHistory(store: InMemoryEventStore): Promise<void> {
    const writer = new SessionService(new SessionRepository(store, { snapshotEvery: 5, segmentSizes, segmentCache: new SegmentCache() }));
    await writer.startSession(caller, { sessionId: 'a' });
    for (const id of ['c1', 'c2', 'c3']) await writer.execute(caller, 'a', start(id));
    await writer.execute(caller, 'a', { type: 'RecordMessage', role: 'user', content: 'hello' });
    await writer.execute(caller, 'a', { type: 'CompleteToolCall', toolCallId: 'c1', output: { ok: true } });
    await writer.repository.flushSnapshots();
  }

  async function restoresToReplayAfterMoreWrites(options: Partial<SessionRepositoryOptions>, before?: (service: SessionService) => Promise<void>) {
    const store = new InMemoryEventStore();
    await writtenHistory(store);
    const repository = new SessionRepository(store, { snapshotEvery: 5, segmentSizes, segmentCache: new SegmentCache(), ...options });
    const service = new SessionService(repository);
    await before?.(service);
    // v7–v10: the snapshot at 10 must hold c1 completed, not the sealed segment's c1 as it was at 5.
    for (let i = 0; i < 4; i++) await service.execute(caller, 'a', { type: 'RecordMessage', role: 'agent', content: `answer ${i}` });
    await repository.flushSnapshots();
    const streamId = sessionStreamId('t', 'a');
    const events = (await store.readStream(streamId)) as unknown as RecordedSessionEvent[];
    const fresh = new SessionRepository(store, { snapshotEvery: 5, segmentSizes, segmentCache: new SegmentCache() });
    expect(await fresh.restore(streamId, 10)).toEqual(replay(events, 10));
    expect((await fresh.restore(streamId, 10)).path.toolCalls.c1?.status).toBe('succeeded');
  }

  it('snapshots it right when it was cached (registered at once)', async () => {
    await restoresToReplayAfterMoreWrites({});
  });

  it('snapshots it right when it was left out of a full cache (registered when the snapshot fell due)', async () => {
    await restoresToReplayAfterMoreWrites({ cacheEvents: 40 }, async (service) => {
      // Another session, used a moment ago, fills the budget: a's states are restored for each write and left out.
      await service.startSession(caller, { sessionId: 'b' });
      for (let i = 0; i < 34; i++) await service.execute(caller, 'b', { type: 'RecordMessage', role: 'user', content: `b ${i}` });
      expect(service.repository.cachedSessions).toBe(1);
    });
  });
});

describe('a long cached state keeps its sealed history in its segments from its next snapshot (viewsFromEvents)', () => {
  it('weighs its tail in the cache, not its history, and answers a tool call from a sealed segment without a whole copy', async () => {
    const store = new InMemoryEventStore();
    const sizes = { turns: 4, toolCalls: 4, timeline: 16 };
    let restores = 0;
    const options: SessionRepositoryOptions = {
      snapshotEvery: 10,
      segmentSizes: sizes,
      viewsFromEvents: 40,
      segmentCache: new SegmentCache(1),
      onRestored: () => restores++,
    };
    const now = () => new Date('2026-11-29T10:00:00Z');
    const service = new SessionService(new SessionRepository(store, options), { now });
    await service.startSession(caller, { sessionId: 'a' });
    for (let i = 0; i < 30; i++) {
      await service.execute(caller, 'a', { type: 'StartToolCall', toolCallId: `call-${i}`, tool: `tool-${i}`, input: { i } });
      await service.execute(caller, 'a', { type: 'CompleteToolCall', toolCallId: `call-${i}`, output: { i } });
    }
    await service.repository.flushSnapshots();
    const version = (await service.getState(caller, 'a')).version;
    expect(version).toBe(61);
    // A whole state would weigh its 61 events; the view weighs its tail (under one timeline segment) and its segment list.
    expect(service.repository.cachedEvents).toBeLessThan(sizes.timeline + 10);
    const whole = new SessionService(new SessionRepository(new InMemoryEventStore(), { snapshotEvery: 0 }), { now });
    const reference = await whole.startSession(caller, { sessionId: 'a' }).then(() => whole);
    for (let i = 0; i < 30; i++) {
      await reference.execute(caller, 'a', { type: 'StartToolCall', toolCallId: `call-${i}`, tool: `tool-${i}`, input: { i } });
      await reference.execute(caller, 'a', { type: 'CompleteToolCall', toolCallId: `call-${i}`, output: { i } });
    }
    expect(await service.getState(caller, 'a')).toEqual(await reference.getState(caller, 'a'));
    // The first call is in a sealed segment the one-entry segment cache no longer holds: read through its filter.
    restores = 0;
    const streamId = sessionStreamId('t', 'a');
    expect((await service.repository.toolCallOf(streamId, 'call-0', { trustCache: true }))?.tool).toBe('tool-0');
    expect((await service.repository.toolCallOf(streamId, 'call-29', { trustCache: true }))?.tool).toBe('tool-29');
    expect(await service.repository.toolCallOf(streamId, 'call-none', { trustCache: true })).toBeUndefined();
    expect(restores).toBe(0);
    // And the write after it decides on the view: a late completion of an old call is refused as a whole state refuses it.
    await expect(service.execute(caller, 'a', { type: 'CompleteToolCall', toolCallId: 'call-0', output: {} })).rejects.toBeInstanceOf(DomainError);
  });
});

describe('the spacing of snapshots grows with the stream, so a head (which lists every segment) costs the same an event (property-based)', () => {
  it('is the configured spacing doubled, between 1/64 and 1/32 of the stream once past 64 spacings, and a multiple of every spacing before it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 10_000_000 }), (every, a, b) => {
        const [earlier, later] = a <= b ? [a, b] : [b, a];
        const spacing = snapshotSpacing(every, later);
        expect(Number.isInteger(Math.log2(spacing / every))).toBe(true);
        if (later < every * 64) expect(spacing).toBe(every);
        else {
          expect(spacing).toBeGreaterThan(later / 64);
          expect(spacing).toBeLessThanOrEqual(later / 32);
        }
        expect(spacing % snapshotSpacing(every, earlier)).toBe(0);
      }),
    );
    expect(snapshotSpacing(0, 1_000_000)).toBe(0);
  });
});
