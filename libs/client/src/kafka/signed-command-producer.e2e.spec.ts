import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature, type KafkaSigningSecretStore } from '@rewind/messaging';
import {
  contractCheckedProducer,
  deploymentTestTopics,
  describeWithKafka,
  KAFKA_TEST_BROKERS,
  kafkaDeploymentEnv,
  until,
} from '@rewind/messaging/kafka/testing';
import { PostgresKafkaSigningSecretStore } from '@rewind/messaging/postgres';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { createRewindClient, isRewindError, type RewindClient } from '../index';
import { SignedCommandProducer, signedCommandMessage, SIGNATURE_HEADER } from './index';

const ROOT = join(__dirname, '../../../..');

describe('signed command messages', () => {
  it('carry the signature the worker verifies, over the exact value sent', () => {
    const key = { keyId: 'k1', secret: 's3cret' };
    const message = signedCommandMessage({ commandId: 'c1', type: 'PopTask', tenantId: 't', sessionId: 's' }, key);
    expect(message.key).toBe('s');
    expect(verifySignature(message.value, message.headers[SIGNATURE_HEADER], key.secret)).toBe(true);
    expect(verifySignature(message.value, message.headers[SIGNATURE_HEADER], 'another secret')).toBe(false);
    expect(verifySignature(`${message.value} `, message.headers[SIGNATURE_HEADER], key.secret)).toBe(false);
  });
});

describeWithKafka('SignedCommandProducer through a real broker and the real worker', () => {
  describe.each(E2E_STORES)('on the %s store', (storeName) => {
    let cleanup: () => Promise<void> = async () => undefined;
    let api: TestApp;
    let client: RewindClient;
    let worker: ChildProcess | undefined;
    let workerOutput = '';
    let producer: Producer;
    let signingKeys: KafkaSigningSecretStore;
    let pool: Pool | undefined;
    const topics = deploymentTestTopics('sdk');

    beforeAll(async () => {
      const target = await storeEnv(storeName);
      cleanup = target.cleanup;
      api = await startTestApp(target.env);
      client = createRewindClient({ baseUrl: api.baseUrl, apiKey: api.adminKey });
      const env = {
        ...process.env,
        ...target.env,
        REWIND_DATA_DIR: api.dataDir,
        ...kafkaDeploymentEnv(topics),
        REWIND_LOG_LEVEL: 'warn',
      };
      // The worker as users run it: its own process, built by `npm run build` (npm test builds first).
      worker = spawn(process.execPath, [join(ROOT, 'apps/worker/dist/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      worker.stdout!.on('data', (d) => (workerOutput += d));
      worker.stderr!.on('data', (d) => (workerOutput += d));
      if (storeName === 'postgres') {
        pool = new Pool({ connectionString: target.env.DATABASE_URL, max: 1 });
        signingKeys = new PostgresKafkaSigningSecretStore(pool);
      } else {
        signingKeys = new SqliteKafkaSigningSecretStore(join(api.dataDir, 'rewind.db'));
      }
      producer = new Kafka({ brokers: KAFKA_TEST_BROKERS, clientId: 'rewind-sdk-test', logLevel: logLevel.NOTHING }).producer();
      await producer.connect();
    });
    afterAll(async () => {
      await producer?.disconnect();
      if (worker && worker.exitCode === null) {
        const exited = new Promise((resolve) => worker!.once('exit', resolve));
        worker.kill('SIGTERM');
        await exited;
      }
      await signingKeys?.close();
      await pool?.end();
      await api?.close();
      await cleanup();
    });

    it('publishes signed envelopes the worker applies once each, in order, and refuses a wrong signature', async () => {
      const key = await signingKeys.create({ tenantId: 'default', name: 'sdk test' });
      // Every message the SDK sends is checked against docs/asyncapi.yaml (a forged signature is well-formed: on the contract).
      const commands = new SignedCommandProducer({
        producer: contractCheckedProducer(producer),
        key: { keyId: key.keyId, secret: key.secret },
        tenantId: 'default',
        topic: topics.commands,
      });
      const id = `kafka-${randomUUID().slice(0, 8)}`;
      await commands.send('StartSession', id, { title: 'via the SDK' });
      const messageId = await commands.send('RecordMessage', id, { role: 'user', content: 'hello over Kafka' });
      await commands.send('RecordMessage', id, { role: 'user', content: 'hello over Kafka' }, { commandId: messageId }); // a resend: applied once
      const forged = new SignedCommandProducer({
        producer: contractCheckedProducer(producer),
        key: { keyId: key.keyId, secret: 'not the secret' },
        tenantId: 'default',
        topic: topics.commands,
      });
      await forged.send('WriteMemory', id, { key: 'forged', value: true });
      await commands.send('WriteMemory', id, { key: 'city', value: 'Lisbon' }, { expectedVersion: 2 });

      await until(
        async () => (await client.getSession(id).catch((e: unknown) => (isRewindError(e, 'session_not_found') ? null : Promise.reject(e))))?.version === 3,
        `the session at version 3 (worker output: ${workerOutput})`,
        60_000,
      );
      const state = await client.getSession(id);
      expect(state).toMatchObject({ title: 'via the SDK', memory: { city: 'Lisbon' } });
      expect(state.conversation.turns.flatMap((t) => t.messages.map((m) => m.content))).toEqual(['hello over Kafka']);
      expect((await client.listEvents(id)).events.map((e) => e.type)).toEqual(['SessionStarted', 'UserMessageReceived', 'MemoryWritten']);
    });
  });
});
