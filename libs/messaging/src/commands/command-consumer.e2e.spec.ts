import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SessionRepository, SessionService, sessionStreamId } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { KafkaMessageBus } from '../kafka/kafka-message-bus';
import { collect, createTopics, describeWithKafka, KAFKA_TEST_BROKERS, offContract, testLogger, uniqueName, until } from '../kafka/testing/kafka-test-support';
import type { BusMessage, DeliveredMessage, Subscription } from '../message-bus';
import { signatureHeaders, type SigningKey } from '../signing/envelope-signature';
import { SqliteKafkaSigningSecretStore } from '../signing/sqlite-signing-secret-store';
import type { CommandEnvelope } from './command-envelope';
import { CommandConsumer } from './command-consumer';
import { commandMessage, DLQ_HEADERS, type CommandResultMessage } from './command-outcome';

describeWithKafka('Kafka command consumer end to end (real broker, SQLite store, SessionService)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-commands-'));
  const file = join(dir, 'rewind.db');
  const prefix = uniqueName('cmd-e2e');
  const topics = { commands: `${prefix}.commands`, commandResults: `${prefix}.command-results`, commandsDlq: `${prefix}.commands.dlq` };
  let store: SqliteEventStore;
  let sessions: SessionService;
  let signingKeys: SqliteKafkaSigningSecretStore;
  let bus: KafkaMessageBus;
  let consumer: CommandConsumer;
  let acme: SigningKey;
  let globex: SigningKey;
  const subscriptions: Subscription[] = [];
  let results: DeliveredMessage[];
  let dlq: DeliveredMessage[];

  const resultsFor = (commandId: string) => results.map((m) => JSON.parse(m.value) as CommandResultMessage).filter((r) => r.commandId === commandId);
  const envelope = (
    type: CommandEnvelope['type'],
    sessionId: string,
    payload?: CommandEnvelope['payload'],
    extra: Partial<CommandEnvelope> = {},
  ): CommandEnvelope => ({
    commandId: randomUUID(),
    type,
    tenantId: 'acme',
    sessionId,
    ...(payload ? { payload } : {}),
    ...extra,
  });
  const send = (...messages: BusMessage[]) => bus.publish(topics.commands, messages);
  /** A message signed by `key` whose value is `value` exactly (for malformed values). */
  const raw = (sessionId: string, value: string, key: SigningKey = acme): BusMessage => ({ key: sessionId, value, headers: signatureHeaders(value, key) });

  beforeAll(async () => {
    store = new SqliteEventStore({ filename: file });
    sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 100 }));
    signingKeys = new SqliteKafkaSigningSecretStore(file);
    acme = await signingKeys.create({ tenantId: 'acme', name: 'e2e' });
    globex = await signingKeys.create({ tenantId: 'globex', name: 'e2e' });
    bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, clientId: 'rewind-command-e2e', logger: testLogger, clientLogLevel: 'error' });
    await createTopics(bus, Object.values(topics));
    consumer = new CommandConsumer({ bus, dispatch: sessions, signingKeys, topics, groupId: uniqueName('commands'), maxAttempts: 3 });
    await consumer.start();
    const r = await collect(bus, topics.commandResults);
    const d = await collect(bus, topics.commandsDlq);
    results = r.messages;
    dlq = d.messages;
    subscriptions.push(r.subscription, d.subscription);
  });

  afterAll(async () => {
    await consumer?.stop();
    for (const s of subscriptions) await s.close();
    await bus?.close();
    await signingKeys?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('turns a signed command into events in the store and publishes its outcome', async () => {
    const start = envelope('StartSession', 'trip', { title: 'Lisbon in May' });
    const message = envelope('RecordMessage', 'trip', { role: 'user', content: 'Plan a trip to Lisbon' });
    await send(commandMessage(start, acme), commandMessage(message, acme));
    await until(() => resultsFor(message.commandId).length === 1 && resultsFor(start.commandId).length === 1, 'both results');

    const [startResult] = resultsFor(start.commandId);
    expect(startResult).toMatchObject({ status: 'applied', result: { sessionId: 'trip', version: 1, duplicate: false, events: [{ type: 'SessionStarted' }] } });
    expect(resultsFor(message.commandId)[0]).toMatchObject({ status: 'applied', result: { version: 2, events: [{ type: 'UserMessageReceived' }] } });
    const resultMessage = results.find((m) => m.value.includes(message.commandId))!;
    expect(resultMessage.key).toBe(message.commandId);
    expect(resultMessage.headers.status).toBe('applied');

    const events = await store.readStream(sessionStreamId('acme', 'trip'));
    expect(events.map((e) => e.type)).toEqual(['SessionStarted', 'UserMessageReceived']);
    expect(events[1]!.metadata).toMatchObject({ commandId: message.commandId, tenantId: 'acme', sessionId: 'trip', actor: `signing-key:${acme.keyId}` });
    expect(events[1]!.data).toMatchObject({ content: 'Plan a trip to Lisbon' });
  });

  it('applies the same message once when it is produced twice (second result: duplicate)', async () => {
    await send(commandMessage(envelope('StartSession', 'twice'), acme));
    const command = envelope('WriteMemory', 'twice', { key: 'city', value: 'Porto' });
    const message = commandMessage(command, acme);
    await send(message);
    await send(message);
    await until(() => resultsFor(command.commandId).length === 2, 'two results for the same commandId');

    expect(resultsFor(command.commandId).map((r) => r.status)).toEqual(['applied', 'duplicate']);
    const [first, second] = resultsFor(command.commandId) as [CommandResultMessage & { result: any }, CommandResultMessage & { result: any }];
    expect(second.result.events).toEqual(first.result.events); // the first answer, again
    const written = (await store.readStream(sessionStreamId('acme', 'twice'))).filter((e) => e.metadata.commandId === command.commandId);
    expect(written).toHaveLength(1);
    expect(written[0]!.type).toBe('MemoryWritten');
  });

  it('records a RecordSteps command as one atomic write, once even when produced twice', async () => {
    await send(commandMessage(envelope('StartSession', 'turns'), acme));
    const turn = envelope('RecordSteps', 'turns', {
      steps: [
        { kind: 'message', role: 'user', content: 'Find a hotel' },
        { kind: 'tool-call', toolCallId: 'h1', tool: 'search_hotels', input: { city: 'Lisbon' } },
        { kind: 'tool-result', toolCallId: 'h1', output: { hotels: ['Alfama Inn'] } },
        { kind: 'message', role: 'agent', content: 'Alfama Inn' },
      ],
    });
    const message = commandMessage(turn, acme);
    await send(message);
    await send(message);
    await until(() => resultsFor(turn.commandId).length === 2, 'two results for the same RecordSteps');
    expect(resultsFor(turn.commandId).map((r) => r.status)).toEqual(['applied', 'duplicate']);
    const written = (await store.readStream(sessionStreamId('acme', 'turns'))).filter((e) => e.metadata.commandId === turn.commandId);
    expect(written.map((e) => e.type)).toEqual(['UserMessageReceived', 'ToolCallStarted', 'ToolCallSucceeded', 'AgentMessageProduced']);

    const refused = envelope('RecordSteps', 'turns', {
      steps: [
        { kind: 'message', role: 'user', content: 'again' },
        { kind: 'tool-result', toolCallId: 'never-started', output: 1 },
      ],
    });
    await send(commandMessage(refused, acme));
    await until(() => resultsFor(refused.commandId).length === 1, 'the refused batch result');
    expect(resultsFor(refused.commandId)[0]).toMatchObject({ status: 'rejected' });
    expect(await store.streamVersion(sessionStreamId('acme', 'turns'))).toBe(5);
  });

  it('dead-letters poison messages with the reason in headers, and applies the valid one behind them on the same partition', async () => {
    const session = 'poisoned';
    // Poison on purpose: off the AsyncAPI contract (checked to fail it) or on it but not authentic.
    const badJson = offContract(raw(session, '{"commandId": "bad-json-1", "type": '));
    const invalid = envelope('RecordMessage', session, { role: 'robot', content: 'x' });
    const badSignature: BusMessage = {
      ...commandMessage(envelope('PopTask', session), acme),
      headers: { 'rewind-key-id': acme.keyId, 'rewind-signature': `v1=${'0'.repeat(64)}` },
    };
    const wrongTenant = envelope('PopTask', session); // tenant acme, signed with globex's key
    const valid = envelope('StartSession', session);
    // One publish, one key: all five are on one partition, in this order.
    await send(badJson, offContract(commandMessage(invalid, acme)), badSignature, commandMessage(wrongTenant, globex), commandMessage(valid, acme));
    await until(() => resultsFor(valid.commandId).length === 1, 'the valid command behind the poison ones');
    await until(() => dlq.filter((m) => m.key === session).length === 4, 'four dead letters');

    expect(resultsFor(valid.commandId)[0]!.status).toBe('applied');
    expect(await store.streamVersion(sessionStreamId('acme', session))).toBe(1);

    const letters = dlq.filter((m) => m.key === session);
    expect(letters.map((m) => m.headers[DLQ_HEADERS.errorCode])).toEqual(['invalid_json', 'validation_failed', 'unauthenticated', 'unauthenticated']);
    const partitions = new Set(letters.map((m) => m.headers[DLQ_HEADERS.originalPartition]));
    expect(partitions.size).toBe(1);
    const offsets = letters.map((m) => Number(m.headers[DLQ_HEADERS.originalOffset]));
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    for (const letter of letters) {
      expect(letter.headers[DLQ_HEADERS.originalTopic]).toBe(topics.commands);
      expect(letter.headers[DLQ_HEADERS.errorMessage]!.length).toBeGreaterThan(10);
    }
    expect(letters[0]!.value).toBe(badJson.value); // the original message, untouched
    expect(letters[2]!.headers[DLQ_HEADERS.errorMessage]).toMatch(/does not match the message value/);
    expect(letters[3]!.headers[DLQ_HEADERS.errorMessage]).toMatch(/belongs to another tenant than "acme"/);

    const validation = resultsFor(invalid.commandId)[0]!;
    expect(validation).toMatchObject({
      status: 'rejected',
      error: { code: 'validation_failed', details: [{ field: 'payload.role', message: expect.stringContaining('role must be one of') }] },
    });
    // Not JSON, so no commandId: its result names where it was read instead.
    expect(
      results.map((m) => JSON.parse(m.value) as CommandResultMessage).filter((r) => r.commandId === null && r.source.offset === String(offsets[0])),
    ).toEqual([
      {
        commandId: null,
        status: 'rejected',
        error: expect.objectContaining({ code: 'invalid_json' }),
        source: { topic: topics.commands, partition: Number([...partitions][0]), offset: String(offsets[0]) },
      },
    ]);
    expect(resultsFor(wrongTenant.commandId)[0]).toMatchObject({ status: 'rejected', error: { code: 'unauthenticated' } });
    // Nothing of the refused commands reached the store.
    expect((await store.readStream(sessionStreamId('acme', session))).map((e) => e.metadata.commandId)).toEqual([valid.commandId]);
  });

  it('rejects for good what the domain or a pinned version refuses, with the API error codes', async () => {
    const missing = envelope('RecordMessage', 'no-such-session', { role: 'user', content: 'hello?' });
    await send(commandMessage(envelope('StartSession', 'pinned'), acme));
    const stale = envelope('WriteMemory', 'pinned', { key: 'k', value: 1 }, { expectedVersion: 7 });
    await send(commandMessage(missing, acme), commandMessage(stale, acme));
    await until(() => resultsFor(missing.commandId).length === 1 && resultsFor(stale.commandId).length === 1, 'both rejections');

    expect(resultsFor(missing.commandId)[0]).toMatchObject({ status: 'rejected', error: { code: 'session_not_found' } });
    expect(resultsFor(stale.commandId)[0]).toMatchObject({
      status: 'rejected',
      error: { code: 'version_conflict', details: [{ field: 'expectedVersion', currentVersion: 1 }] },
    });
    // Both dead letters: the two sessions' commands are keyed to their own partitions, so neither arrives first for sure.
    await until(() => dlq.some((m) => m.value.includes(stale.commandId)) && dlq.some((m) => m.value.includes(missing.commandId)), 'both commands in the DLQ');
    expect(dlq.find((m) => m.value.includes(missing.commandId))!.headers[DLQ_HEADERS.errorCode]).toBe('session_not_found');
    expect(await store.streamVersion(sessionStreamId('acme', 'pinned'))).toBe(1);
  });

  it('retries a transient failure with backoff, then dead-letters it as retries_exhausted', async () => {
    // A second consumer on its own topics, over a store whose database is closed: every append fails.
    const brokenFile = join(dir, 'broken.db');
    const broken = new SqliteEventStore({ filename: brokenFile });
    await broken.close();
    const own = { commands: `${prefix}.t.commands`, commandResults: `${prefix}.t.results`, commandsDlq: `${prefix}.t.dlq` };
    await createTopics(bus, Object.values(own), 1);
    const failing = new CommandConsumer({
      bus,
      dispatch: new SessionService(new SessionRepository(broken, { snapshotEvery: 0 })),
      signingKeys,
      topics: own,
      groupId: uniqueName('t'),
      maxAttempts: 3,
    });
    await failing.start();
    const letters = await collect(bus, own.commandsDlq);
    const outcomes = await collect(bus, own.commandResults);
    try {
      const command = envelope('StartSession', 'never');
      await bus.publish(own.commands, [commandMessage(command, acme)]);
      await until(() => letters.messages.length === 1 && outcomes.messages.length === 1, 'the dead letter after three attempts');
      expect(letters.messages[0]!.headers).toMatchObject({ [DLQ_HEADERS.errorCode]: 'retries_exhausted', [DLQ_HEADERS.attempts]: '3' });
      expect(JSON.parse(outcomes.messages[0]!.value)).toMatchObject({
        commandId: command.commandId,
        status: 'rejected',
        error: { code: 'retries_exhausted', message: expect.stringContaining('failed 3 times') },
      });
    } finally {
      await failing.stop();
      await letters.subscription.close();
      await outcomes.subscription.close();
    }
  });
});
