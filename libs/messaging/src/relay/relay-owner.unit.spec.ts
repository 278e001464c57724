import { expect, it } from 'vitest';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { newEvent } from '@rewind/event-store/testing';
import { InProcessMessageBus } from '../in-process';
import { silentLogger } from '../kafka/logger';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import { EventRelay } from './event-relay';

/** Waits (at most `tries` × 20 ms) for the relay's checkpoint to reach `position`; false if it does not. */
async function reaches(checkpoints: InMemoryCheckpointStore, name: string, position: number, tries = 250): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if ((await checkpoints.load(name)) >= position) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

it('a relay restarted under the same owner id takes its unexpired lease back at once; another owner stands by until it expires', async () => {
  const store = new InMemoryEventStore();
  const bus = new InProcessMessageBus();
  const checkpoints = new InMemoryCheckpointStore();
  await store.append('s1', [newEvent(), newEvent()], { expectedVersion: 'no_stream' });
  const head = await store.lastPosition();
  // The previous process of worker "w1" died holding a lease for 10 minutes (a SIGKILL releases nothing).
  expect(await checkpoints.acquire('relay:events', 'w1', 600_000)).toBe(true);

  const stranger = new EventRelay({ store, bus, checkpoints, topic: 'events', owner: 'w2', leaseMs: 600_000, pollIntervalMs: 5, logger: silentLogger });
  stranger.start();
  expect(await reaches(checkpoints, 'relay:events', head, 50)).toBe(false);
  await stranger.stop();

  const restarted = new EventRelay({ store, bus, checkpoints, topic: 'events', owner: 'w1', leaseMs: 600_000, pollIntervalMs: 5, logger: silentLogger });
  restarted.start();
  try {
    expect(await reaches(checkpoints, 'relay:events', head)).toBe(true);
  } finally {
    await restarted.stop();
    await bus.close();
  }
});
