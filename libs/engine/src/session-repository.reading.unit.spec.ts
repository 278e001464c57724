import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyPartOf, replay, type RecordedSessionEvent } from '@rewind/domain';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository, type SessionRepositoryOptions } from './session-repository';
import { SessionService } from './session-service';
import { SnapshotEncoder } from './snapshot-encoder';
import { SegmentCache } from './snapshot-segments';
import { sessionStreamId } from './stream-id';

const caller = { tenantId: 't', actor: 'tester' };
const streamId = sessionStreamId('t', 's');

afterEach(() => vi.restoreAllMocks());

describe('a state restored only to be read (time travel, a path)', () => {
  it('is not registered with the snapshot encoder (O(the session) for nothing), nor is the state a write loads', async () => {
    const store = new InMemoryEventStore();
    // Tiny segments and a snapshot every 3 events: a 12-turn session's snapshots are segmented.
    const options: SessionRepositoryOptions = { snapshotEvery: 3, segmentSizes: { turns: 2, toolCalls: 2, timeline: 4 }, segmentCache: new SegmentCache() };
    const service = new SessionService(new SessionRepository(store, options));
    await service.startSession(caller, { sessionId: 's' });
    for (let i = 0; i < 12; i++) {
      await service.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: `question ${i}` });
      await service.execute(caller, 's', { type: 'RecordMessage', role: 'agent', content: `answer ${i}` });
    }
    await service.repository.flushSnapshots();
    const events = (await store.readStream(streamId)) as unknown as RecordedSessionEvent[];

    const assembled = vi.spyOn(SnapshotEncoder.prototype, 'assembled');
    const reader = new SessionRepository(store, { ...options, segmentCache: new SegmentCache() });
    for (const version of [7, 10, events.length]) expect(await reader.load(streamId, version)).toEqual(replay(events, version));
    expect(await reader.pathAt(streamId, 9)).toEqual(replay(events, 9).path);
    expect(assembled).not.toHaveBeenCalled();

    // The current state a write folds into keeps its sealed history in the segments (issue 40): not assembled either.
    expect(lazyPartOf((await reader.load(streamId, undefined, { forWrite: true })).timeline)).toBeDefined();
    expect(assembled).not.toHaveBeenCalled();
  });

  it('is whole when read, while the state a write loads keeps its sealed history in the segments (issue 40)', async () => {
    const store = new InMemoryEventStore();
    const options: SessionRepositoryOptions = { snapshotEvery: 3, segmentSizes: { turns: 2, toolCalls: 2, timeline: 4 }, segmentCache: new SegmentCache() };
    const service = new SessionService(new SessionRepository(store, options));
    await service.startSession(caller, { sessionId: 's' });
    for (let i = 0; i < 12; i++) await service.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: `question ${i}` });
    await service.repository.flushSnapshots();
    const events = (await store.readStream(streamId)) as unknown as RecordedSessionEvent[];

    const reader = new SessionRepository(store, { ...options, segmentCache: new SegmentCache() });
    const forWrite = await reader.load(streamId, undefined, { forWrite: true });
    expect(lazyPartOf(forWrite.path.turns)?.refs.length).toBeGreaterThan(0);
    expect(lazyPartOf(forWrite.timeline)?.refs.length).toBeGreaterThan(0);
    const read = await reader.load(streamId);
    expect(lazyPartOf(read.path.turns)).toBeUndefined();
    expect(lazyPartOf(read.timeline)).toBeUndefined();
    expect(read).toEqual(replay(events));
  });
});
