import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import { SqliteCheckpointStore, SqliteEventStore } from '@rewind/event-store/sqlite';
import { EventRelay, type DeliveredMessage, type Subscription } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { collect, createTopics, describeWithKafka, KAFKA_TEST_BROKERS, testLogger, uniqueName, until } from '@rewind/messaging/kafka/testing';
import { startTracing, type Tracing } from '@rewind/observability';

// Its own file (its own process): tracing sets OpenTelemetry's global provider.
describeWithKafka('the relay continues each write’s trace (in-memory exporter, real broker)', () => {
  const exporter = new InMemorySpanExporter();
  const dir = mkdtempSync(join(tmpdir(), 'rewind-relay-traces-'));
  let tracing: Tracing;
  let store: SqliteEventStore;
  let bus: KafkaMessageBus;
  let relay: EventRelay | undefined;
  let collector: Subscription | undefined;

  beforeAll(async () => {
    // Roots are not sampled: the writes are sampled because their caller's trace is, the relay's own spans are not.
    tracing = startTracing({ serviceName: 'rewind-relay-test', exporter, env: { OTEL_TRACES_SAMPLER: 'parentbased_always_off' } })!;
    store = new SqliteEventStore({ filename: join(dir, 'events.db') });
    bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, logger: testLogger, clientLogLevel: 'error' });
  }, 60_000);
  afterAll(async () => {
    await relay?.stop();
    await collector?.close();
    await bus?.close();
    await store?.close();
    await tracing?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  const id = (s: ReadableSpan) => s.spanContext().spanId;
  const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
  const traceparentOf = (s: ReadableSpan) => `00-${s.spanContext().traceId}-${id(s)}-01`;

  it('publishes one batch in one send, with a publish span per write (a child of it) that each message carries', async () => {
    // One event written without a sampled trace, then two writes each in its caller's sampled trace, all before the relay starts: one batch.
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
    await sessions.startSession({ tenantId: 'acme', actor: 'test' }, { sessionId: 'untraced' });
    for (const sessionId of ['first', 'second']) {
      const caller = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: randomBytes(16).toString('hex'),
        spanId: randomBytes(8).toString('hex'),
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
      await context.with(caller, () => sessions.startSession({ tenantId: 'acme', actor: 'test' }, { sessionId }));
    }
    const commands = exporter.getFinishedSpans().filter((s) => s.name === 'rewind.command');
    // The untraced write made no sampled span.
    expect(commands.map((s) => s.attributes['rewind.session_id'])).toEqual(['first', 'second']);
    expect(new Set(commands.map((s) => s.spanContext().traceId)).size).toBe(2);

    const topic = uniqueName('relay-traces');
    await createTopics(bus, [topic]);
    const collected = await collect(bus, topic);
    collector = collected.subscription;
    const published: DeliveredMessage[] = collected.messages;
    exporter.reset();
    relay = new EventRelay({ store, bus, checkpoints: new SqliteCheckpointStore(join(dir, 'events.db')), topic, logger: testLogger });
    relay.start();
    await until(() => published.length === 3, `three events on ${topic}`);

    const spans = exporter.getFinishedSpans();
    const names = spans.map((s) => s.name).join(', ');
    const publishes = spans.filter((s) => s.name === 'rewind.relay.publish');
    expect(publishes, names).toHaveLength(2);
    // One send for the batch, under a sampled publish span (not the batch's first, the untraced event's, which is not sampled).
    const sends = spans.filter((s) => s.name === `send ${topic}`);
    expect(sends, names).toHaveLength(1);
    expect(publishes.map(id)).toContain(parentOf(sends[0]!));
    for (const [i, sessionId] of ['first', 'second'].entries()) {
      const publish = publishes.find((s) => parentOf(s) === id(commands[i]!));
      expect(publish, `the publish span of ${sessionId}'s write`).toBeDefined();
      expect(publish!.spanContext().traceId).toBe(commands[i]!.spanContext().traceId);
      expect(publish!.attributes['messaging.batch.message_count']).toBe(1);
      const message = published.find((m) => m.key === sessionId)!;
      expect((JSON.parse(message.value) as { metadata: { traceparent: string } }).metadata.traceparent).toBe(traceparentOf(commands[i]!));
      expect(message.headers.traceparent).toBe(traceparentOf(publish!));
    }
    // The event written without a sampled trace kept none; its publish span is the relay's own root, here not sampled
    // (so not exported): its message carries that decision, and the others still their writes'.
    const untraced = published.find((m) => m.key === 'untraced')!;
    expect((JSON.parse(untraced.value) as { metadata: object }).metadata).not.toHaveProperty('traceparent');
    expect(untraced.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  });
});
