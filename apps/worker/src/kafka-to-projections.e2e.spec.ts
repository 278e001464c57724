import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { afterAll, expect, it } from 'vitest';
import { PostgresEventStore } from '@rewind/event-store/postgres';
import type { CommandEnvelope } from '@rewind/messaging';
import { commandMessage, type CommandResultMessage } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import {
  collect,
  deploymentTestTopics,
  describeWithKafka,
  KAFKA_TEST_BROKERS,
  kafkaDeploymentEnv,
  offContract,
  testLogger,
  until,
} from '@rewind/messaging/kafka/testing';
import { PostgresKafkaSigningSecretStore } from '@rewind/messaging/postgres';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../test/support/test-app';
import { startWorker, type Worker } from './worker';
import { loadWorkerConfig } from './worker-config';

// Issue 5's end-to-end path, all real: Kafka broker, PostgreSQL store, the worker, the API's projection routes.
describeWithKafka('a Kafka command on the PostgreSQL store: stored, projected, published', () => {
  let db: TestDatabase | undefined;
  let worker: Worker | undefined;
  let api: TestApp | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-k2p-'));
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('becomes an event in PostgreSQL, shows in GET /v1/sessions, is consumed from the events topic; a redelivery applies once; a malformed one goes to the DLQ', async () => {
    db = await createTestDatabase('rewind_k2p');
    const topics = deploymentTestTopics('k2p');
    const env = {
      REWIND_STORE: 'postgres',
      DATABASE_URL: db.url,
      ...kafkaDeploymentEnv(topics),
      REWIND_DATA_DIR: dataDir,
      REWIND_LOG_LEVEL: 'warn',
      REWIND_WORKER_HTTP_PORT: '0',
    };
    worker = await startWorker(loadWorkerConfig(env), () => testLogger);
    api = await startTestApp({
      REWIND_STORE: 'postgres',
      DATABASE_URL: db.url,
      REWIND_DATA_DIR: dataDir,
      KAFKA_BROKERS: env.KAFKA_BROKERS,
      KAFKA_TOPIC_EVENTS: topics.events,
    });

    const pool = new Pool({ connectionString: db.url, max: 1 });
    const key = await new PostgresKafkaSigningSecretStore(pool).create({ tenantId: 'default' });
    await pool.end();

    const bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, logger: testLogger, clientLogLevel: 'error' });
    const results = await collect(bus, topics.results);
    const events = await collect(bus, topics.events);
    const dlq = await collect(bus, topics.dlq);
    try {
      const start: CommandEnvelope = {
        commandId: randomUUID(),
        type: 'StartSession',
        tenantId: 'default',
        sessionId: 'from-kafka',
        payload: { title: 'via Kafka' },
      };
      const message: CommandEnvelope = {
        commandId: randomUUID(),
        type: 'RecordMessage',
        tenantId: 'default',
        sessionId: 'from-kafka',
        payload: { role: 'user', content: 'hello from Kafka' },
      };
      await bus.publish(topics.commands, [commandMessage(start, key), commandMessage(message, key), commandMessage(message, key)]);
      await bus.publish(topics.commands, [offContract({ key: 'from-kafka', value: '{"not": "an envelope"', headers: {} })]);

      const outcomes = () => results.messages.map((m) => JSON.parse(m.value) as CommandResultMessage);
      await until(() => outcomes().length >= 4, 'four results', 40_000);
      expect(
        outcomes()
          .filter((o) => o.commandId === message.commandId)
          .map((o) => o.status),
      ).toEqual(['applied', 'duplicate']);

      const store = await PostgresEventStore.open({ connectionString: db.url, poolSize: 1 });
      const stored = await store.readStream('session:default:from-kafka');
      await store.close();
      expect(stored.map((e) => e.type)).toEqual(['SessionStarted', 'UserMessageReceived']);

      await until(
        async () => {
          const list = await api!.http('GET', '/v1/sessions');
          return list.body.items?.some((s: { sessionId: string; version: number }) => s.sessionId === 'from-kafka' && s.version === 2);
        },
        'the session in the projection API',
        30_000,
      );
      const audit = await api.http('GET', '/v1/audit?sessionId=from-kafka');
      expect(audit.body.items.map((i: { type: string }) => i.type)).toEqual(expect.arrayContaining(['SessionStarted', 'UserMessageReceived']));

      await until(() => events.messages.length >= 2, 'both events on the events topic', 40_000);
      expect(events.messages.map((m) => m.headers.eventId).sort()).toEqual(stored.map((e) => e.eventId).sort());
      expect(events.messages[0]).toMatchObject({ key: 'from-kafka', headers: expect.objectContaining({ tenant: 'default', type: 'SessionStarted' }) });

      // The relay's publish lag, as the API reports it.
      await until(
        async () => /rewind_subscriber_lag_events\{subscriber="relay:[^"]+"\} 0/.test(await (await fetch(`${api!.baseUrl}/metrics`)).text()),
        'relay lag 0 in /metrics',
        30_000,
      );

      await until(() => dlq.messages.length >= 1, 'the malformed message in the DLQ', 40_000);
      expect(dlq.messages[0]!.headers['error-code']).toEqual(expect.any(String));
    } finally {
      for (const c of [results, events, dlq]) await c.subscription.close();
      await bus.close();
    }
  });
});
