import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { EventRelay, type DeliveredMessage, type Subscription } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { collect, createTopics, describeWithKafka, KAFKA_TEST_BROKERS, testLogger, uniqueName, until } from '@rewind/messaging/kafka/testing';
import { SqliteCheckpointStore } from '@rewind/event-store/sqlite';
import { FieldEncryption, MasterKeyProvider, SHREDDED_VALUE } from '@rewind/tenancy';
import { SqliteDataKeyStore } from '@rewind/tenancy/sqlite';

const SSN = '078-05-1120';

describeWithKafka("the relay's Kafka output carries ciphertext only, unreadable once shredded", () => {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-relay-enc-'));
  const file = join(dir, 'rewind.db');
  let store: SqliteEventStore;
  let keys: SqliteDataKeyStore;
  let checkpoints: SqliteCheckpointStore;
  let bus: KafkaMessageBus;
  let relay: EventRelay;
  let published: DeliveredMessage[];
  let collector: Subscription;

  beforeAll(async () => {
    store = new SqliteEventStore({ filename: file });
    keys = new SqliteDataKeyStore(file);
    checkpoints = new SqliteCheckpointStore(file);
    bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, clientId: 'rewind-relay-enc-test', logger: testLogger, clientLogLevel: 'error' });
    const topic = uniqueName('relay-encrypted');
    await createTopics(bus, [topic]);
    ({ messages: published, subscription: collector } = await collect(bus, topic));
    relay = new EventRelay({ store, bus, checkpoints, topic, logger: testLogger });
  });
  afterAll(async () => {
    await relay?.stop();
    await collector?.close();
    await bus?.close();
    await checkpoints?.close();
    await keys?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes the stored ciphertext; after a shred, what consumers received can no longer be decrypted', async () => {
    const encryption = new FieldEncryption(keys, new MasterKeyProvider(randomBytes(32)), 0);
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
    const caller = { tenantId: 'acme', actor: 'test' };
    await sessions.startSession(caller, { sessionId: 'kyc' });
    const body = (await encryption.encryptPaths('acme', 'kyc', { value: SSN }, ['value'])) as { value: string };
    await sessions.execute(caller, 'kyc', { type: 'WriteMemory', key: 'ssn', value: body.value });
    relay.start();
    await until(() => published.length >= 2, 'both events on the topic');
    const written = published.find((m) => m.headers.type === 'MemoryWritten')!;
    expect(written.value).not.toContain(SSN);
    expect(written.value).toContain('rwd:enc:v1:');
    const consumed = JSON.parse(written.value) as unknown;
    expect(JSON.stringify(await encryption.decryptDeep('acme', consumed))).toContain(SSN);
    await encryption.shred('acme', 'kyc', 'test');
    expect(JSON.stringify(await encryption.decryptDeep('acme', consumed))).toContain(SHREDDED_VALUE);
    expect(JSON.stringify(await encryption.decryptDeep('acme', consumed))).not.toContain(SSN);
  });
});
