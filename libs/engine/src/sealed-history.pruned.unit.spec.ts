import { describe, expect, it } from 'vitest';
import { lazyPartOf, replay, type RecordedSessionEvent } from '@rewind/domain';
import { pruneSqliteSnapshots, SqliteEventStore } from '@rewind/event-store/sqlite';
import { SessionRepository, type SessionRepositoryOptions } from './session-repository';
import { SessionService } from './session-service';
import { isSegmentedHead, SegmentCache } from './snapshot-segments';
import { sessionStreamId } from './stream-id';

const caller = { tenantId: 't', actor: 'tester' };
const streamId = sessionStreamId('t', 's');

describe('a state reading sealed history from segments that retention deleted (issue 40)', () => {
  it('takes the missing segment as a conflict: the write is decided again on a fresh state, written once, and the state is right', async () => {
    const store = new SqliteEventStore({ filename: ':memory:' });
    const errors: unknown[] = [];
    // Two processes on one store, each with its own caches; the segment cache keeps nothing, so every segment is read from the store.
    const options = (): SessionRepositoryOptions => ({
      snapshotEvery: 2,
      segmentSizes: { turns: 2, toolCalls: 2, timeline: 4 },
      segmentCache: new SegmentCache(1),
      onSnapshotError: (error) => errors.push(error),
    });
    const first = new SessionService(new SessionRepository(store, options()));
    await first.startSession(caller, { sessionId: 's' });
    for (let i = 0; i < 6; i++) await first.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: `question ${i}`, turnId: `turn-${i}` });
    await first.repository.flushSnapshots();

    // The second process loads the session for a write: its turns stay in the segments of the newest snapshot.
    const second = new SessionService(new SessionRepository(store, options()));
    await second.execute(caller, 's', { type: 'RecordMessage', role: 'agent', content: 'answer 5', turnId: 'turn-5' });
    await second.repository.flushSnapshots();
    const held = await second.repository.load(streamId, undefined, { forWrite: true, trustCache: true });
    expect(lazyPartOf(held.path.turns)?.refs.length).toBeGreaterThan(0);

    // The first answers the oldest turn (its sealed segment is cut again) and writes on; retention keeps one snapshot:
    // the segment the second's state names for turn-0 is gone.
    await first.execute(caller, 's', { type: 'RecordMessage', role: 'agent', content: 'late answer 0', turnId: 'turn-0' });
    await first.execute(caller, 's', { type: 'RecordMessage', role: 'user', content: 'question 6', turnId: 'turn-6' });
    await first.repository.flushSnapshots();
    const pruned = pruneSqliteSnapshots(store.db, {
      keep: 1,
      dryRun: false,
      referencedSegments: (state) => (isSegmentedHead(state) ? [...state.segments.turns, ...state.segments.toolCalls, ...state.segments.timeline] : []),
    });
    expect(pruned.segmentsDeleted).toBeGreaterThan(0);

    // The second names turn-0: its segment is missing, the write is decided again on the state restored from the store.
    const result = await second.execute(caller, 's', { type: 'InterruptTurn', turnId: 'turn-0', partialContent: '' }).catch((error: unknown) => error);
    const events = (await store.readStream(streamId)) as unknown as RecordedSessionEvent[];
    // turn-0 is complete (the late answer): refused as such, not as a missing segment, and nothing written twice.
    expect(result).toMatchObject({ code: 'turn_not_open' });
    expect(events.filter((event) => event.type === 'TurnInterrupted')).toHaveLength(0);
    expect(errors.some((error) => String(error).includes('is missing'))).toBe(true);
    await second.execute(caller, 's', { type: 'RecordMessage', role: 'agent', content: 'answer 6', turnId: 'turn-6' });
    expect(await second.getState(caller, 's')).toEqual(replay((await store.readStream(streamId)) as unknown as RecordedSessionEvent[]));
    await store.close();
  });
});
