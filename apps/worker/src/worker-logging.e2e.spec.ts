import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { describeWithKafka, KAFKA_TEST_BROKERS, trackTopics, uniqueName } from '@rewind/messaging/kafka/testing';
import { contextLogger, createLogger } from '@rewind/observability';
import { startWorker } from './worker';
import { loadWorkerConfig } from './worker-config';

/** A root logger whose JSON lines are kept, as main.ts builds it over stdout. */
function capturedLogger(level: 'log' | 'debug') {
  const raw: string[] = [];
  const root = createLogger(level, { write: (line: string) => void raw.push(line) });
  return { root, raw, lines: () => raw.map((l) => JSON.parse(l) as { level: string; context: string; msg: string; time: string }) };
}

describe('the worker logs as JSON lines', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-worker-logs-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('one object per line with level, time and context, no colour codes', async () => {
    const { root, raw, lines } = capturedLogger('log');
    const worker = await startWorker(loadWorkerConfig({ REWIND_DATA_DIR: dataDir, REWIND_WORKER_HTTP: 'off' }), (c) => contextLogger(root, c));
    await worker.stop();
    expect(raw.every((l) => l.endsWith('\n') && !l.includes('\u001b['))).toBe(true);
    expect(lines()).toContainEqual(
      expect.objectContaining({ level: 'info', context: 'Worker', msg: expect.stringMatching(/^Worker is running \(bus inprocess/) }),
    );
    expect(lines().every((l) => typeof l.time === 'string')).toBe(true);
  });
});

describe('conditions the Kafka client recovers from by itself', () => {
  it('are warnings, not errors (connection refused)', async () => {
    const { root, lines } = capturedLogger('log');
    // Port 1 on the loopback: nothing listens, the connection is refused at once.
    const bus = new KafkaMessageBus({ brokers: ['127.0.0.1:1'], logger: contextLogger(root, 'Kafka'), connectionTimeoutMs: 500 });
    try {
      await expect(bus.publish('any', [{ key: null, value: 'v', headers: {} }])).rejects.toThrow();
    } finally {
      await bus.close();
    }
    const kafka = lines().filter((l) => l.context === 'Kafka');
    expect(kafka.some((l) => l.level === 'warn' && /ECONNREFUSED|Connection error/.test(l.msg))).toBe(true);
    expect(kafka.filter((l) => l.level === 'error')).toEqual([]);
  });
});

describeWithKafka('the Kafka client logs in the same format', () => {
  it('routes kafkajs lines through the "Kafka" context as JSON', async () => {
    const { root, lines } = capturedLogger('debug');
    const topic = uniqueName('logs');
    trackTopics(topic);
    const bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, logger: contextLogger(root, 'Kafka'), clientLogLevel: 'debug' });
    try {
      await bus.ensureTopics([{ topic, numPartitions: 1, replicationFactor: 1 }]);
      await bus.publish(topic, [{ key: 'k', value: 'v', headers: {} }]);
    } finally {
      await bus.close();
    }
    const kafka = lines().filter((l) => l.context === 'Kafka');
    expect(kafka.length).toBeGreaterThan(0);
    expect(kafka.some((l) => l.msg.startsWith('kafkajs '))).toBe(true);
  });
});
