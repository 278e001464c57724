import { describe, expect, it } from 'vitest';
import { KafkaConfigError, rewindTopicSpecs } from '@rewind/messaging';
import { loadWorkerConfig, WorkerConfigError } from './worker-config';

describe('worker configuration from the environment', () => {
  it('defaults to the embedded bus and reads no Kafka setting then', () => {
    const config = loadWorkerConfig({ KAFKA_BROKERS: 'not a broker list' });
    expect(config).toMatchObject({
      bus: 'inprocess',
      kafka: null,
      commands: { enabled: true, groupId: 'rewind-commands', maxAttempts: 5 },
      relay: { enabled: true, batchSize: 500 },
    });
  });

  it('reads Kafka brokers, client id, topic names and partition counts', () => {
    const config = loadWorkerConfig({
      REWIND_BUS: 'kafka',
      KAFKA_BROKERS: 'k1:9092, k2:19092',
      KAFKA_CLIENT_ID: 'worker-7',
      KAFKA_TOPIC_EVENTS: 'acme.events',
      KAFKA_PARTITIONS: '6',
      KAFKA_TOPIC_COMMANDS_PARTITIONS: '12',
      KAFKA_CREATE_TOPICS: 'false',
    });
    expect(config.kafka).toMatchObject({
      brokers: ['k1:9092', 'k2:19092'],
      clientId: 'worker-7',
      topics: { commands: 'rewind.commands', commandResults: 'rewind.command-results', commandsDlq: 'rewind.commands.dlq', events: 'acme.events' },
      partitions: { commands: 12, commandResults: 6, commandsDlq: 6, events: 6 },
      createTopics: false,
    });
    expect(rewindTopicSpecs(config.kafka!).map((s) => [s.topic, s.numPartitions])).toEqual([
      ['rewind.commands', 12],
      ['rewind.command-results', 6],
      ['rewind.commands.dlq', 6],
      ['acme.events', 6],
    ]);
    expect(loadWorkerConfig({ REWIND_BUS: 'kafka' }).kafka).toMatchObject({
      brokers: ['127.0.0.1:9092'],
      clientId: 'rewind-worker',
      partitions: { events: 3 },
      createTopics: true,
    });
  });

  it('names the variable and what it accepts when a value is wrong', () => {
    expect(() => loadWorkerConfig({ REWIND_BUS: 'rabbit' })).toThrow(
      new WorkerConfigError('REWIND_BUS="rabbit" is not valid: expected one of inprocess, kafka (default inprocess).'),
    );
    expect(() => loadWorkerConfig({ REWIND_BUS: 'kafka', KAFKA_BROKERS: 'localhost' })).toThrow(KafkaConfigError);
    expect(() => loadWorkerConfig({ REWIND_BUS: 'kafka', KAFKA_BROKERS: 'localhost' })).toThrow(
      /KAFKA_BROKERS entry "localhost" is not valid: expected host:port/,
    );
    expect(() => loadWorkerConfig({ REWIND_BUS: 'kafka', KAFKA_PARTITIONS: '0' })).toThrow(/KAFKA_PARTITIONS="0" is not valid/);
    expect(() => loadWorkerConfig({ REWIND_BUS: 'kafka', KAFKA_TOPIC_EVENTS: 'rewind.commands' })).toThrow(/must all differ/);
    expect(() => loadWorkerConfig({ REWIND_BUS: 'kafka', KAFKA_TOPIC_DLQ: 'x' })).not.toThrow();
    expect(() => loadWorkerConfig({ REWIND_WORKER_RELAY: 'maybe' })).toThrow(/REWIND_WORKER_RELAY="maybe" is not valid: expected one of on, off/);
    expect(() => loadWorkerConfig({ REWIND_BUS: 'kafka', KAFKA_TOPIC_COMMANDS: 'bad topic!' })).toThrow(/not a valid Kafka topic name/);
  });
});

describe('failover settings', () => {
  it('reads the consumer group timing and the worker id, and names the variable of a bad value', () => {
    const config = loadWorkerConfig({
      REWIND_BUS: 'kafka',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      REWIND_WORKER_ID: 'rewind-worker-0',
      REWIND_RELAY_LEASE_MS: '3000',
    });
    expect(config.kafka!.consumer).toEqual({ sessionTimeoutMs: 6000, heartbeatIntervalMs: 1200, rebalanceTimeoutMs: 60_000 });
    expect(loadWorkerConfig({ REWIND_BUS: 'kafka' }).kafka!.consumer.sessionTimeoutMs).toBe(6000);
    expect(loadWorkerConfig({}).relay.leaseMs).toBe(6000);
    expect(config.workerId).toBe('rewind-worker-0');
    expect(config.relay.leaseMs).toBe(3000);
    expect(loadWorkerConfig({}).workerId).toBeNull();
    expect(() => loadWorkerConfig({ REWIND_BUS: 'kafka', KAFKA_SESSION_TIMEOUT_MS: '6000', KAFKA_HEARTBEAT_INTERVAL_MS: '3000' })).toThrow(
      /KAFKA_HEARTBEAT_INTERVAL_MS="3000" is not valid: it must be at most a third of KAFKA_SESSION_TIMEOUT_MS \(6000\)/,
    );
    expect(() => loadWorkerConfig({ REWIND_BUS: 'kafka', KAFKA_REBALANCE_TIMEOUT_MS: 'soon' })).toThrow(/KAFKA_REBALANCE_TIMEOUT_MS="soon" is not valid/);
    expect(() => loadWorkerConfig({ REWIND_WORKER_ID: 'two words' })).toThrow(/REWIND_WORKER_ID="two words" is not valid/);
  });
});

describe('workspace channel settings', () => {
  it('is off without REWIND_WORKSPACE_ROOT; reads the root, the blob folder and the retention in hours; names a bad value', () => {
    expect(loadWorkerConfig({}).workspace).toBeNull();
    expect(loadWorkerConfig({ REWIND_WORKSPACE_ROOT: '/srv/files' }).workspace).toEqual({ root: '/srv/files', blobDir: undefined, retentionMs: 0 });
    expect(
      loadWorkerConfig({ REWIND_WORKSPACE_ROOT: '/srv/files/', REWIND_WORKSPACE_BLOB_DIR: '/srv/blobs', REWIND_WORKSPACE_RETENTION_HOURS: '168' }).workspace,
    ).toEqual({ root: '/srv/files', blobDir: '/srv/blobs', retentionMs: 168 * 3_600_000 });
    expect(() => loadWorkerConfig({ REWIND_WORKSPACE_ROOT: '/srv/files', REWIND_WORKSPACE_RETENTION_HOURS: 'a week' })).toThrow(
      /REWIND_WORKSPACE_RETENTION_HOURS="a week" is not valid/,
    );
  });
});
