import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import { type StoredEvent } from '@rewind/event-store';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { KafkaMessageBus } from '../kafka/kafka-message-bus';
import { collect, createTopics, describeWithKafka, KAFKA_TEST_BROKERS, testLogger, uniqueName, until } from '../kafka/testing/kafka-test-support';
import type { DeliveredMessage, Subscription } from '../message-bus';
import { EventRelay } from './event-relay';
import { SqliteCheckpointStore } from '@rewind/event-store/sqlite';

describeWithKafka('EventRelay to a real broker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-relay-'));
  let file: string;
  let store: SqliteEventStore;
  let sessions: SessionService;
  let checkpoints: SqliteCheckpointStore;
  let bus: KafkaMessageBus;
  let topic: string;
  let published: DeliveredMessage[];
  let collector: Subscription;
  const relays: EventRelay[] = [];

  const newRelay = (options: Partial<ConstructorParameters<typeof EventRelay>[0]> = {}) => {
    const relay = new EventRelay({ store, bus, checkpoints, topic, logger: testLogger, ...options });
    relays.push(relay);
    return relay;
  };

  /** Writes `n` events over three sessions of two tenants, through the real SessionService. */
  async function write(n: number, tag: string): Promise<void> {
    for (const [tenantId, sessionId] of [
      ['acme', `${tag}-a`],
      ['acme', `${tag}-b`],
      ['globex', `${tag}-c`],
    ] as const) {
      await sessions.startSession({ tenantId, actor: 'test' }, { sessionId });
    }
    for (let i = 3; i < n; i++) {
      const [tenantId, sessionId] = i % 3 === 2 ? ['globex', `${tag}-c`] : ['acme', `${tag}-${i % 3 === 0 ? 'a' : 'b'}`];
      await sessions.execute({ tenantId, actor: 'test' }, sessionId, { type: 'WriteMemory', key: 'n', value: i });
    }
  }

  const all = () => store.readAll({ after: 0, limit: 1_000_000 });
  const ids = (messages: DeliveredMessage[]) => messages.map((m) => m.headers.eventId!);

  beforeEach(async () => {
    file = join(dir, `${uniqueName('relay')}.db`);
    store = new SqliteEventStore({ filename: file });
    sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
    checkpoints = new SqliteCheckpointStore(file);
    bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, clientId: 'rewind-relay-test', logger: testLogger, clientLogLevel: 'error' });
    topic = uniqueName('relay-events');
    await createTopics(bus, [topic]);
    ({ messages: published, subscription: collector } = await collect(bus, topic));
  });

  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await collector.close();
    await bus.close();
    await checkpoints.close();
    await store.close();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('publishes every committed event exactly once, keyed by session, with type, tenant and eventId headers', async () => {
    await write(30, 's');
    const relay = newRelay({ batchSize: 7 });
    relay.start();
    await until(async () => published.length >= (await store.lastPosition()), 'the first 30 events');
    await write(12, 'late'); // appended while the relay runs
    const expected = await all();
    await until(() => published.length >= expected.length, 'the events written while running');
    await until(async () => (await relay.lag()) === 0, 'the checkpoint to catch up');

    expect(published).toHaveLength(expected.length); // exactly once: nothing twice, nothing missing
    expect(new Set(ids(published))).toEqual(new Set(expected.map((e) => e.eventId)));
    const byId = new Map(published.map((m) => [m.headers.eventId!, m]));
    for (const event of expected) {
      const message = byId.get(event.eventId)!;
      expect(message.key).toBe(event.metadata.sessionId);
      expect(message.headers).toMatchObject({ type: event.type, tenant: event.metadata.tenantId, eventId: event.eventId });
      expect(JSON.parse(message.value) as StoredEvent).toEqual(event);
    }
    // Per session, the events arrive in stream order (one key, one partition).
    for (const sessionId of new Set(expected.map((e) => e.metadata.sessionId))) {
      const versions = published.filter((m) => m.key === sessionId).map((m) => (JSON.parse(m.value) as StoredEvent).streamVersion);
      expect(versions).toEqual(versions.map((_, i) => i + 1));
    }
    expect(await relay.status()).toMatchObject({
      state: 'running',
      leader: true,
      lag: 0,
      checkpoint: expected[expected.length - 1]!.globalPosition,
      published: expected.length,
    });
  });

  it('after a crash between publish and checkpoint, a restart republishes from the checkpoint and misses nothing', async () => {
    await write(50, 'crash');
    let batches = 0;
    const crashing = newRelay({
      batchSize: 10,
      leaseMs: 300, // the "dead" process' lease runs out quickly
      testHooks: {
        afterPublish: () => {
          if (++batches === 3) throw new Error('simulated crash after the broker acknowledged batch 3');
        },
      },
    });
    crashing.start();
    await crashing.done;
    expect(crashing.currentState).toBe('crashed');
    expect(await checkpoints.load('relay:' + topic)).toBe(20); // batches 1 and 2 saved; batch 3 published, not saved
    await until(() => published.length === 30, 'the three published batches');

    const restarted = newRelay({ batchSize: 10 });
    restarted.start();
    const expected = await all();
    await until(() => new Set(ids(published)).size === expected.length, 'every event after the restart');
    await until(async () => (await restarted.lag()) === 0, 'the checkpoint to catch up');

    expect(new Set(ids(published))).toEqual(new Set(expected.map((e) => e.eventId))); // nothing missed
    const counts = new Map<string, number>();
    for (const id of ids(published)) counts.set(id, (counts.get(id) ?? 0) + 1);
    const duplicated = expected.filter((e) => counts.get(e.eventId) === 2).map((e) => e.globalPosition);
    expect(duplicated).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]); // exactly the unsaved batch, once more
    expect([...counts.values()].every((c) => c <= 2)).toBe(true);
  });

  it('lets one relay of several publish (lease); a standby takes over when it stops, without duplicates', async () => {
    await write(20, 'lease');
    const a = newRelay({ owner: 'worker-a', leaseMs: 10_000 });
    const b = newRelay({ owner: 'worker-b', leaseMs: 10_000 });
    a.start();
    b.start();
    await until(() => published.length >= 20, 'the first 20 events');
    await until(async () => (await a.lag()) === 0, 'the checkpoint');
    const [sa, sb] = await Promise.all([a.status(), b.status()]);
    expect([sa.leader, sb.leader].filter(Boolean)).toHaveLength(1);
    const [leader, standby] = sa.leader ? [a, b] : [b, a];
    await leader.stop(); // releases the lease

    await write(10, 'after');
    const expected = await all();
    await until(() => published.length >= expected.length, 'the events after the hand-over');
    await until(async () => (await standby.lag()) === 0, 'the standby to catch up');
    expect((await standby.status()).leader).toBe(true);
    expect(ids(published).sort()).toEqual(expected.map((e) => e.eventId).sort()); // each once
  });
});
