import { describe, expect, it, vi } from 'vitest';
import { replay, type RecordedSessionEvent } from '@rewind/domain';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SessionRepository } from './session-repository';
import { SessionService } from './session-service';
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
