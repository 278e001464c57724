import { afterAll, beforeAll, expect, it } from 'vitest';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { describeWithKafka, KAFKA_TEST_BROKERS, testLogger, trackTopics, uniqueName } from '@rewind/messaging/kafka/testing';
import { BusCompensationChannel, type CompensationReply } from './bus-channel';

// The saga's `kafka` compensation channel on a real broker: request topic, reply topic, timeout.
describeWithKafka('the kafka compensation channel on a real broker', () => {
  let bus: KafkaMessageBus;
  const requests = uniqueName('refunds');
  const replies = `${requests}.replies`;
  const silent = uniqueName('silent');
  beforeAll(async () => {
    bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, logger: testLogger, clientLogLevel: 'error' });
    trackTopics(requests, replies, silent, `${silent}.replies`);
    await bus.ensureTopics([requests, replies, silent, `${silent}.replies`].map((topic) => ({ topic, numPartitions: 1, replicationFactor: 1 })));
  });
  afterAll(async () => bus.close());

  it('publishes the filled request and returns the compensator reply; the same key is seen on every attempt', async () => {
    const seen: { key: string; payload: unknown }[] = [];
    let failuresLeft = 1;
    const compensator = await bus.subscribe(requests, { groupId: uniqueName('refund-service'), fromBeginning: true }, async (message) => {
      const request = JSON.parse(message.value) as { idempotencyKey: string; payload: unknown; replyTopic: string };
      seen.push({ key: message.headers['idempotency-key']!, payload: request.payload });
      const reply: CompensationReply =
        failuresLeft-- > 0
          ? { idempotencyKey: request.idempotencyKey, status: 'failed', retryable: true, error: 'ledger busy' }
          : { idempotencyKey: request.idempotencyKey, status: 'applied', response: { refunded: 42 } };
      await bus.publish(request.replyTopic, [{ key: message.key, value: JSON.stringify(reply), headers: {} }]);
    });
    const channel = new BusCompensationChannel(bus);
    const request = {
      idempotencyKey: 'rewind:s~r1:pay:3',
      tenantId: 't',
      sessionId: 's',
      rollbackId: 's~r1',
      toolCallId: 'pay',
      tool: 'charge',
      target: requests,
      payload: { amount: 42 },
      timeoutMs: 20_000,
    };
    expect(await channel.send(request)).toMatchObject({ status: 'failed', retryable: true, error: 'ledger busy' });
    expect(await channel.send(request)).toEqual({ status: 'applied', response: { refunded: 42 } });
    expect(seen).toEqual([
      { key: 'rewind:s~r1:pay:3', payload: { amount: 42 } },
      { key: 'rewind:s~r1:pay:3', payload: { amount: 42 } },
    ]);
    await compensator.close();
    await channel.close();
  });

  it('gives up on a silent compensator after the timeout, as a retryable failure', async () => {
    const channel = new BusCompensationChannel(bus);
    const result = await channel.send({
      idempotencyKey: 'rewind:s~r2:x:1',
      tenantId: 't',
      sessionId: 's',
      rollbackId: 's~r2',
      toolCallId: 'x',
      tool: 'x',
      target: silent,
      payload: null,
      timeoutMs: 1_500,
    });
    expect(result).toMatchObject({ status: 'failed', retryable: true, error: expect.stringContaining('no reply') });
    await channel.close();
  });
});
