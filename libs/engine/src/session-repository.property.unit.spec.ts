import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError, REDUCER_VERSION, replay, type RecordedSessionEvent } from '@rewind/domain';
import { commandsFor, intentArb } from '@rewind/domain/testing';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from './session-repository';
import { SessionService } from './session-service';
import { sessionStreamId } from './stream-id';

const RUNS = Number(process.env.REWIND_PROPERTY_RUNS ?? 1000);
const caller = { tenantId: 't', actor: 'tester' };

describe('restoring from snapshots (property-based)', () => {
  it('invariant 2: snapshot + tail equals full replay at every version, for any snapshot stride', async () => {
    let snapshotsUsed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(intentArb, { minLength: 5, maxLength: 40 }), fc.integer({ min: 1, max: 12 }), async (intents, stride) => {
        const store = new InMemoryEventStore();
        const service = new SessionService(new SessionRepository(store, { snapshotEvery: stride }));
        await service.startSession(caller, { sessionId: 's' });
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
        const streamId = sessionStreamId('t', 's');
        await service.repository.flushSnapshots();
        const events = (await store.readStream(streamId)) as unknown as RecordedSessionEvent[];
        // A fresh repository has no cache: every load goes through snapshot + tail.
        const fresh = new SessionRepository(store, { snapshotEvery: stride });
        for (let v = 1; v <= events.length; v++) {
          expect(await fresh.restore(streamId, v)).toEqual(replay(events, v));
          if (await store.loadSnapshot(streamId, REDUCER_VERSION, v)) snapshotsUsed++;
        }
        // The service's cached current state agrees too.
        expect(await service.getState(caller, 's')).toEqual(replay(events));
      }),
      { numRuns: RUNS },
    );
    expect(snapshotsUsed).toBeGreaterThan(RUNS);
  });

  it('ignores a snapshot written by another reducer version', async () => {
    const store = new InMemoryEventStore();
    const service = new SessionService(new SessionRepository(store, { snapshotEvery: 1 }));
    await service.startSession(caller, { sessionId: 's' });
    await service.execute(caller, 's', { type: 'WriteMemory', key: 'k', value: 1 });
    await service.repository.flushSnapshots();
    const streamId = sessionStreamId('t', 's');
    const poisoned = { ...((await store.loadSnapshot(streamId, REDUCER_VERSION, 2))!.state as object), title: 'written by an old reducer' };
    await store.saveSnapshot({ streamId, version: 2, reducerVersion: 0, state: poisoned });
    const restored = await new SessionRepository(store, { snapshotEvery: 1 }).restore(streamId, 2);
    expect(restored.title).toBeNull();
    expect(restored.path.memory).toEqual({ k: 1 });
  });
});

describe('snapshot cadence', () => {
  it('snapshots by elapsed time when REWIND_SNAPSHOT_EVERY_SECONDS is set, and never by count when the stride is 0', async () => {
    const store = new InMemoryEventStore();
    let now = 1_000_000;
    const realNow = Date.now;
    Date.now = () => now;
    try {
      const service = new SessionService(new SessionRepository(store, { snapshotEvery: 0, snapshotEverySeconds: 60 }));
      await service.startSession(caller, { sessionId: 't' });
      await service.execute(caller, 't', { type: 'WriteMemory', key: 'a', value: 1 });
      await service.repository.flushSnapshots();
      expect(await store.loadSnapshot(sessionStreamId('t', 't'), REDUCER_VERSION, 100)).toBeNull();
      now += 61_000;
      await service.execute(caller, 't', { type: 'WriteMemory', key: 'b', value: 2 });
      await service.repository.flushSnapshots();
      expect(await store.loadSnapshot(sessionStreamId('t', 't'), REDUCER_VERSION, 100)).toMatchObject({ version: 3 });
    } finally {
      Date.now = realNow;
    }
  });
});
