import { Partitioners } from 'kafkajs';
import { expect, it } from 'vitest';
import type { DeliveredMessage, MessageBus } from '../message-bus';
import { describeMessageBusContract } from '../testing/message-bus.contract';
import { KafkaMessageBus } from './kafka-message-bus';
import { createTopics, describeWithKafka, KAFKA_TEST_BROKERS, testLogger, trackTopics, uniqueName, until } from './testing/kafka-test-support';

const newBus = () =>
  new KafkaMessageBus({
    brokers: KAFKA_TEST_BROKERS,
    clientId: 'rewind-bus-test',
    logger: testLogger,
    clientLogLevel: 'error',
    redelivery: { initialDelayMs: 50, maxDelayMs: 400 },
  });

async function freshTopic(bus: MessageBus, numPartitions = 3): Promise<string> {
  const topic = uniqueName('bus-test');
  await createTopics(bus as KafkaMessageBus, [topic], numPartitions);
  return topic;
}

describeWithKafka('KafkaMessageBus on a real broker', () => {
  describeMessageBusContract(
    'KafkaMessageBus',
    async () => newBus(),
    (bus) => freshTopic(bus),
  );

  it('keeps other partitions flowing while one message keeps failing, and keeps that partition in order', async () => {
    const bus = newBus();
    try {
      const topic = await freshTopic(bus, 3);
      const partitioner = Partitioners.DefaultPartitioner();
      const partitionMetadata = [0, 1, 2].map((partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0 }));
      const partitionOf = (key: string) => partitioner({ topic, partitionMetadata, message: { key, value: null } });
      const poisonPartition = partitionOf('poison-key');
      const others = Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, headers: {} }));
      const elsewhere = others.filter((m) => partitionOf(m.key) !== poisonPartition);
      const behind = others.filter((m) => partitionOf(m.key) === poisonPartition);
      expect(elsewhere.length).toBeGreaterThan(0);
      expect(behind.length).toBeGreaterThan(0);

      let poisonFailures = 0;
      let healed = false;
      const got: DeliveredMessage[] = [];
      const sub = await bus.subscribe(topic, { groupId: uniqueName('g'), fromBeginning: true }, async (m) => {
        if (m.value === 'poison' && !healed) {
          poisonFailures++;
          throw new Error('simulated failure');
        }
        got.push(m);
      });
      await bus.publish(topic, [{ key: 'poison-key', value: 'poison', headers: {} }, ...others]);

      await until(() => got.length === elsewhere.length && poisonFailures >= 2, 'the messages on the other partitions');
      expect(got.map((m) => m.value).sort()).toEqual(elsewhere.map((m) => m.value).sort());
      expect(got.every((m) => m.partition !== poisonPartition)).toBe(true); // the poison's partition waits behind it

      healed = true;
      await until(() => got.length === others.length + 1, 'every message once the handler recovers');
      expect(got.filter((m) => m.partition === poisonPartition).map((m) => m.value)).toEqual(['poison', ...behind.map((m) => m.value)]);
      await sub.close();
    } finally {
      await bus.close();
    }
  });

  it('on close finishes the in-flight handler, commits, and a new member resumes right after it', async () => {
    const bus = newBus();
    try {
      const topic = await freshTopic(bus, 1);
      const groupId = uniqueName('g');
      await bus.publish(
        topic,
        Array.from({ length: 10 }, (_, i) => ({ key: 'k', value: String(i), headers: {} })),
      );
      const first: string[] = [];
      let closing: Promise<void> | undefined;
      const sub1 = await bus.subscribe(topic, { groupId, fromBeginning: true }, async (m) => {
        if (m.value === '5') {
          closing = sub1.close(); // shut down while this handler is still running
          await new Promise((r) => setTimeout(r, 200));
        }
        first.push(m.value);
      });
      await until(() => closing !== undefined, 'message 5');
      await closing;
      expect(first).toEqual(['0', '1', '2', '3', '4', '5']);
      const second: string[] = [];
      const sub2 = await bus.subscribe(topic, { groupId, fromBeginning: true }, async (m) => {
        second.push(m.value);
      });
      await until(() => second.length >= 4, 'the rest of the messages');
      expect(second).toEqual(['6', '7', '8', '9']);
      await sub2.close();
    } finally {
      await bus.close();
    }
  });

  it('creates topics idempotently', async () => {
    const bus = newBus();
    try {
      const topic = uniqueName('bus-test');
      trackTopics(topic);
      const spec = { topic, numPartitions: 2, replicationFactor: 1 };
      expect(await bus.ensureTopics([spec])).toEqual({ created: [topic], existing: [] });
      expect(await bus.ensureTopics([spec])).toEqual({ created: [], existing: [topic] });
      const admin = await bus.admin();
      const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(metadata.topics[0]!.partitions).toHaveLength(2);
    } finally {
      await bus.close();
    }
  });

  it('says which broker it could not reach and what to do', async () => {
    const bus = new KafkaMessageBus({ brokers: ['127.0.0.1:1'], clientLogLevel: 'nothing' });
    try {
      await expect(bus.publish('any-topic', [{ key: null, value: 'x', headers: {} }])).rejects.toThrow(
        /Could not publish 1 message\(s\) to Kafka topic "any-topic" on 127\.0\.0\.1:1: .*start it/,
      );
    } finally {
      await bus.close();
    }
  });
});
