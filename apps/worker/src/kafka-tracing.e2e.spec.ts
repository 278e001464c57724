import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commandMessage, type DeliveredMessage } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { collect, deploymentTestTopics, describeWithKafka, KAFKA_TEST_BROKERS, kafkaDeploymentEnv, testLogger, until } from '@rewind/messaging/kafka/testing';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { startTracing, type Tracing } from '@rewind/observability';
import { databaseFile, startWorker, type Worker } from './worker';
import { loadWorkerConfig } from './worker-config';

// Its own file (its own process): tracing sets OpenTelemetry's global provider.
describeWithKafka('traces across Kafka (in-memory exporter, real broker, the worker in process)', () => {
  const exporter = new InMemorySpanExporter();
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-kafka-traces-'));
  const topics = deploymentTestTopics('traces');
  let tracing: Tracing;
  let worker: Worker;
  let bus: KafkaMessageBus;
  let events: { messages: DeliveredMessage[] };

  const memory = process.env.REWIND_MEMORY;
  beforeAll(async () => {
    process.env.REWIND_MEMORY = 'off'; // the worker's memory indexer reads the process environment; not under test here
    tracing = startTracing({ serviceName: 'rewind-worker-test', exporter })!;
    worker = await startWorker(
      loadWorkerConfig({
        REWIND_DATA_DIR: dataDir,
        ...kafkaDeploymentEnv(topics),
        REWIND_WORKER_HTTP: 'off',
        REWIND_MEMORY: 'off',
      }),
      () => testLogger,
    );
    bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, logger: testLogger, clientLogLevel: 'error' });
    events = await collect(bus, topics.events);
  }, 60_000);
  afterAll(async () => {
    await bus?.close();
    await worker?.stop();
    await tracing?.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
    if (memory === undefined) delete process.env.REWIND_MEMORY;
    else process.env.REWIND_MEMORY = memory;
  });

  const spans = () => exporter.getFinishedSpans();
  const id = (s: ReadableSpan) => s.spanContext().spanId;
  const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
  const names = () =>
    spans()
      .map((s) => `${s.name}/${SpanKind[s.kind]}`)
      .join(', ');

  it('carries a producer’s trace through the command topic into the worker’s command and append, and the relay’s publish to its consumers', async () => {
    const keys = new SqliteKafkaSigningSecretStore(databaseFile(dataDir));
    const key = await keys.create({ tenantId: 'acme' });
    await keys.close();
    const sessionId = `traced-${randomUUID().slice(0, 8)}`;
    const commandId = randomUUID();

    // A traced producer: its span is the parent the worker must continue.
    const producerSpanId = await trace.getTracer('test').startActiveSpan('test.produce', async (span) => {
      await bus.publish(topics.commands, [commandMessage({ commandId, type: 'StartSession', tenantId: 'acme', sessionId }, key)]);
      span.end();
      return id(span as unknown as ReadableSpan);
    });

    await until(() => events.messages.some((m) => m.key === sessionId), `the session's event on ${topics.events}`);
    await until(() => spans().some((s) => s.name === `process ${topics.events}` && s.kind === SpanKind.CONSUMER), `the events consumer's span (${names()})`);
    // The relay is poked by the commit, so the event can be consumed before the command's own consumer span has ended.
    await until(() => spans().some((s) => s.name === `process ${topics.commands}` && s.kind === SpanKind.CONSUMER), `the command consumer's span (${names()})`);

    // Producer -> Kafka (traceparent header) -> the worker's consume -> command -> append.
    const send = spans().find((s) => s.name === `send ${topics.commands}` && s.kind === SpanKind.PRODUCER);
    expect(send, names()).toBeDefined();
    expect(parentOf(send!)).toBe(producerSpanId);
    const consume = spans().find((s) => s.name === `process ${topics.commands}` && s.kind === SpanKind.CONSUMER);
    expect(consume, names()).toBeDefined();
    expect(parentOf(consume!)).toBe(id(send!));
    expect(consume!.spanContext().traceId).toBe(send!.spanContext().traceId);
    expect(consume!.attributes).toMatchObject({ 'messaging.system': 'kafka', 'messaging.destination.name': topics.commands });
    const command = spans().find((s) => s.name === 'rewind.command' && s.attributes['rewind.stream_id'] === `session:acme:${sessionId}`);
    expect(command, names()).toBeDefined();
    expect(parentOf(command!)).toBe(id(consume!));
    const append = spans().find((s) => s.name === 'rewind.event-store.append' && parentOf(s) === id(command!));
    expect(append, names()).toBeDefined();

    expect(command!.attributes).toMatchObject({ 'rewind.command.type': 'StartSession', 'rewind.session_id': sessionId, 'rewind.event_count': 1 });
    expect(append!.attributes).toMatchObject({ 'rewind.stream_id': `session:acme:${sessionId}`, 'rewind.event_count': 1 });

    // The write's trace is kept with its event; the relay's publish continues it (a child of the command), and so do the event's consumers.
    const relayed = events.messages.find((m) => m.key === sessionId)!;
    const commandTraceparent = `00-${command!.spanContext().traceId}-${id(command!)}-01`;
    expect((JSON.parse(relayed.value) as { metadata: { traceparent?: string } }).metadata.traceparent).toBe(commandTraceparent);
    const publish = spans().find((s) => s.name === 'rewind.relay.publish' && parentOf(s) === id(command!));
    expect(publish, names()).toBeDefined();
    expect(publish!.spanContext().traceId).toBe(send!.spanContext().traceId);
    expect(publish!.attributes).toMatchObject({ 'messaging.destination.name': topics.events, 'messaging.batch.message_count': 1 });
    expect(relayed.headers.traceparent).toBe(`00-${publish!.spanContext().traceId}-${id(publish!)}-01`);
    const eventConsume = spans().find((s) => s.name === `process ${topics.events}` && parentOf(s) === id(publish!));
    expect(eventConsume, names()).toBeDefined();
    // The relay's one send for its batch nests under a publish span of that batch.
    const relaySends = spans().filter((s) => s.name === `send ${topics.events}`);
    expect(relaySends.length, names()).toBeGreaterThan(0);
    const publishIds = new Set(
      spans()
        .filter((s) => s.name === 'rewind.relay.publish')
        .map(id),
    );
    for (const relaySend of relaySends) expect(publishIds.has(parentOf(relaySend)!), names()).toBe(true);
  });
});
