import { LRUCache } from 'lru-cache';
import { halfJitterGenerator } from 'cockatiel';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import {
  Kafka,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type KafkaMessage,
  type LogEntry,
  type Producer,
} from 'kafkajs';
import type { BusMessage, DeliveredMessage, MessageBus, MessageHandler, SubscribeOptions, Subscription } from '../message-bus';
import type { KafkaTopicSpec } from './kafka-config';
import { silentLogger, type Logger } from '@rewind/config';
import { errorMessage } from './logger';
import { ensureTopics, type EnsureTopicsResult } from './topic-admin';

export type KafkaClientLogLevel = 'nothing' | 'error' | 'warn' | 'info' | 'debug';

export interface KafkaMessageBusOptions {
  /** `host:port` of one or more brokers. */
  brokers: string[];
  clientId?: string;
  logger?: Logger;
  /** kafkajs' own lines at or above this level go to `logger` (default `warn`). */
  clientLogLevel?: KafkaClientLogLevel;
  /** How many partitions one subscription handles at the same time (default 16). */
  partitionsConsumedConcurrently?: number;
  /** Backoff before a message whose handler threw is delivered again (exponential, with jitter). */
  redelivery?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Longest a fetch waits for new data; also bounds how long `close()` waits for an idle fetch (default 500). */
  maxWaitTimeInMs?: number;
  /** Consumer group session timeout: how soon a dead member's partitions move to another (default 10 000). */
  sessionTimeoutMs?: number;
  /** How often a consumer tells the group it is alive (default a fifth of the session timeout, at least 500). */
  heartbeatIntervalMs?: number;
  /** Longest a rebalance waits for the members to rejoin (default 60 000, kafkajs' own). */
  rebalanceTimeoutMs?: number;
  connectionTimeoutMs?: number;
}

const CLIENT_LEVEL: Record<KafkaClientLogLevel, logLevel> = {
  nothing: logLevel.NOTHING,
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
};

/**
 * Routes kafkajs' structured log lines to a Logger as one readable line each (its errors
 * as warnings: it recovers from them by itself). While
 * a broker is down kafkajs repeats the same error many times a second: a line already
 * written in the last 10 s is counted instead, and the count is shown when it comes again.
 */
function kafkaLogCreator(logger: Logger, quietMs = 10_000) {
  const seen = new LRUCache<string, { at: number; suppressed: number }>({ max: 1_000 });
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _t, logger: _l, stack: _s, ...extra } = log;
      const key = `${level}:${namespace}:${message}`;
      const now = Date.now();
      const last = seen.get(key);
      if (last && now - last.at < quietMs) {
        last.suppressed++;
        return;
      }
      seen.set(key, { at: now, suppressed: 0 });
      const context = ['broker', 'groupId', 'topic', 'error']
        .filter((k) => extra[k] !== undefined)
        .map((k) => `${k}=${typeof extra[k] === 'object' ? JSON.stringify(extra[k]) : String(extra[k])}`)
        .join(' ');
      const repeated = last?.suppressed ? ` [${last.suppressed} more like this in the last ${Math.round((now - last.at) / 1000)} s]` : '';
      const line = `kafkajs ${namespace}: ${message}${context ? ` (${context})` : ''}${repeated}`;
      // The client retries what it logs as an error (coordinator not available, connection refused, a
      // consumer crash it restarts from): a warning. Rewind itself logs ERROR when it gives up.
      if (level <= logLevel.WARN) logger.warn(line);
      else if (level === logLevel.INFO) logger.log(line);
      else logger.debug?.(line);
    };
}

export class KafkaPublishError extends Error {
  constructor(topic: string, count: number, brokers: string[], cause: unknown) {
    super(
      `Could not publish ${count} message(s) to Kafka topic "${topic}" on ${brokers.join(',')}: ${errorMessage(cause)}. ` +
        'Nothing is lost: the caller retries. If the broker is down, start it; if the topic does not exist, create it (or let Rewind create it with KAFKA_CREATE_TOPICS=true).',
      { cause },
    );
    this.name = 'KafkaPublishError';
  }
}

function headerText(value: IHeaders[string]): string | undefined {
  if (value === undefined) return undefined;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

const tracer = trace.getTracer('rewind');

/**
 * Runs the handler of one delivered message in a CONSUMER span whose parent is the producer's
 * span carried in the message's `traceparent` header (W3C; `publish` writes it), so the work a message causes joins the trace of whoever sent it. No-op when tracing is off.
 */
function handleInSpan(delivered: DeliveredMessage, groupId: string, handler: MessageHandler): Promise<void> {
  const parent = propagation.extract(ROOT_CONTEXT, delivered.headers);
  const attributes = {
    'messaging.system': 'kafka',
    'messaging.operation.type': 'process',
    'messaging.destination.name': delivered.topic,
    'messaging.destination.partition.id': String(delivered.partition),
    'messaging.kafka.offset': Number(delivered.offset),
    'messaging.consumer.group.name': groupId,
  };
  return tracer.startActiveSpan(`process ${delivered.topic}`, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    try {
      await handler(delivered);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * The headers plus the message's own trace context (`traceparent`, W3C) when it has one, else the
 * active one while tracing records; else the headers as they are.
 */
function withTraceContext(recording: boolean, headers: Record<string, string> | undefined, own: Context | undefined): Record<string, string> | undefined {
  if (!recording && own === undefined) return headers;
  const carried: Record<string, string> = { ...headers };
  propagation.inject(own ?? context.active(), carried);
  return carried;
}

function toDelivered(topic: string, partition: number, message: KafkaMessage): DeliveredMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    const text = headerText(value);
    if (text !== undefined) headers[name] = text;
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString('utf8') : null,
    value: message.value ? message.value.toString('utf8') : '',
    headers,
  };
}

/**
 * One consumer group member. At-least-once: an offset is resolved (and later committed)
 * only after its handler resolved. A handler that throws pauses only its partition and
 * gets the same message again after a backoff, so other partitions keep flowing and the
 * partition's order is kept.
 */
class KafkaSubscription implements Subscription {
  private closing = false;
  private closed: Promise<void> | undefined;
  private readonly attempts = new LRUCache<string, number>({ max: 10_000 });
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly consumer: Consumer,
    private readonly topic: string,
    private readonly groupId: string,
    private readonly handler: MessageHandler,
    private readonly options: { initialDelayMs: number; maxDelayMs: number; logger: Logger },
    private readonly onClosed: (s: KafkaSubscription) => void,
  ) {}

  async eachBatch({ batch, resolveOffset, heartbeat, pause, isRunning, isStale, commitOffsetsIfNecessary }: EachBatchPayload): Promise<void> {
    for (const message of batch.messages) {
      if (this.closing || !isRunning() || isStale()) return;
      const delivered = toDelivered(batch.topic, batch.partition, message);
      try {
        await handleInSpan(delivered, this.groupId, this.handler);
      } catch (error) {
        this.redeliverLater(batch.partition, message.offset, error, pause);
        return; // the rest of this batch is fetched again after the pause
      }
      this.attempts.delete(`${batch.partition}:${message.offset}`);
      resolveOffset(message.offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }

  private redeliverLater(partition: number, offset: string, error: unknown, pause: () => () => void): void {
    const key = `${partition}:${offset}`;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, attempt);
    // Half jitter (between half and all of the doubled delay) keeps redeliveries of many partitions apart.
    const [delay] = halfJitterGenerator(Math.min(attempt - 1, 20), {
      initialDelay: this.options.initialDelayMs,
      maxDelay: this.options.maxDelayMs,
      exponent: 2,
      generator: halfJitterGenerator,
    });
    this.options.logger.warn(
      `The handler for Kafka topic "${this.topic}" (group "${this.groupId}") failed on partition ${partition} at offset ${offset} (attempt ${attempt}): ${errorMessage(error)}. ` +
        `The message will be delivered again in ${delay} ms; other partitions keep flowing.`,
    );
    const resume = pause();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closing) resume();
    }, delay);
    this.timers.add(timer);
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
      try {
        // Waits for in-flight handlers, commits the resolved offsets, leaves the group.
        await this.consumer.disconnect();
      } finally {
        this.onClosed(this);
      }
    })();
    return this.closed;
  }
}

/** The message log port on Apache Kafka (kafkajs). Passes the same contract suite as the in-process bus. */
export class KafkaMessageBus implements MessageBus {
  readonly kafka: Kafka;
  private readonly logger: Logger;
  private readonly subscriptions = new Set<KafkaSubscription>();
  private producerReady: Promise<Producer> | undefined;
  private adminReady: Promise<Admin> | undefined;
  private closed = false;

  constructor(private readonly options: KafkaMessageBusOptions) {
    this.logger = options.logger ?? silentLogger;
    this.kafka = new Kafka({
      brokers: options.brokers,
      clientId: options.clientId ?? 'rewind',
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      // Callers retry with their own backoff (redelivery, relay), so the client gives up within a few seconds.
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000 },
      logLevel: CLIENT_LEVEL[options.clientLogLevel ?? 'warn'],
      logCreator: kafkaLogCreator(this.logger),
    });
  }

  get brokers(): string[] {
    return this.options.brokers;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The Kafka message bus is closed: create a new one to publish or subscribe again.');
  }

  private producer(): Promise<Producer> {
    this.producerReady ??= (async () => {
      const producer = this.kafka.producer({
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner, // murmur2, the same key → partition mapping as the Java client
        retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 3_000 },
      });
      await producer.connect();
      return producer;
    })().catch((error) => {
      this.producerReady = undefined;
      throw error;
    });
    return this.producerReady;
  }

  /** A connected admin client (shared; closed with the bus). */
  admin(): Promise<Admin> {
    this.assertOpen();
    this.adminReady ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })().catch((error) => {
      this.adminReady = undefined;
      throw new Error(
        `Cannot reach Kafka at ${this.brokers.join(',')}: ${errorMessage(error)}. Start the broker (bash scripts/kafka/broker.sh start) or fix KAFKA_BROKERS.`,
        {
          cause: error,
        },
      );
    });
    return this.adminReady;
  }

  /** Creates missing topics (idempotent); see `ensureTopics`. */
  async ensureTopics(specs: KafkaTopicSpec[]): Promise<EnsureTopicsResult> {
    return ensureTopics(await this.admin(), specs, this.logger);
  }

  async publish(topic: string, messages: BusMessage[]): Promise<void> {
    this.assertOpen();
    if (messages.length === 0) return;
    const attributes = {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'send',
      'messaging.destination.name': topic,
      'messaging.batch.message_count': messages.length,
    };
    await tracer.startActiveSpan(`send ${topic}`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
      try {
        const producer = await this.producer();
        await producer.send({
          topic,
          acks: -1,
          messages: messages.map((m) => ({ key: m.key, value: m.value, headers: withTraceContext(span.isRecording(), m.headers, m.traceContext) })),
        });
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
        throw new KafkaPublishError(topic, messages.length, this.brokers, error);
      } finally {
        span.end();
      }
    });
  }

  async subscribe(topic: string, options: SubscribeOptions, handler: MessageHandler): Promise<Subscription> {
    this.assertOpen();
    const sessionTimeout = this.options.sessionTimeoutMs ?? 10_000;
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: this.options.maxWaitTimeInMs ?? 500,
      sessionTimeout,
      heartbeatInterval: this.options.heartbeatIntervalMs ?? Math.max(500, Math.floor(sessionTimeout / 5)),
      rebalanceTimeout: this.options.rebalanceTimeoutMs ?? 60_000,
      retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5_000 },
    });
    const subscription = new KafkaSubscription(
      consumer,
      topic,
      options.groupId,
      handler,
      { initialDelayMs: this.options.redelivery?.initialDelayMs ?? 100, maxDelayMs: this.options.redelivery?.maxDelayMs ?? 5_000, logger: this.logger },
      (s) => this.subscriptions.delete(s),
    );
    // While a broker is down the consumer crashes and restarts about once a second: say so once per 10 s, and say when it is back.
    let crashes = 0;
    let lastCrashLog = 0;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      crashes++;
      if (!payload.restart || Date.now() - lastCrashLog >= 10_000) {
        lastCrashLog = Date.now();
        // A consumer that restarts by itself is a warning; ERROR only when it gives up.
        (payload.restart ? this.logger.warn : this.logger.error).call(
          this.logger,
          `The Kafka consumer of topic "${topic}" (group "${options.groupId}") stopped on an error: ${errorMessage(payload.error)}. ` +
            (payload.restart
              ? 'It restarts by itself and resumes from the last committed offset.'
              : 'It does not restart: restart the process once the cause is fixed.'),
        );
      }
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      if (crashes === 0) return;
      this.logger.log(
        `The Kafka consumer of topic "${topic}" (group "${options.groupId}") is consuming again after ${crashes} restart(s); partitions ${JSON.stringify(payload.memberAssignment[topic] ?? [])}.`,
      );
      crashes = 0;
      lastCrashLog = 0;
    });
    this.subscriptions.add(subscription);
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: options.fromBeginning ?? false });
      await consumer.run({
        autoCommit: true,
        autoCommitInterval: 1_000,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 16,
        eachBatch: (payload) => subscription.eachBatch(payload),
      });
    } catch (error) {
      await subscription.close().catch(() => {});
      throw new Error(
        `Could not subscribe to Kafka topic "${topic}" as group "${options.groupId}" on ${this.brokers.join(',')}: ${errorMessage(error)}. ` +
          'Check that the broker is up and that the topic exists (Rewind creates its topics at start unless KAFKA_CREATE_TOPICS=false).',
        { cause: error },
      );
    }
    return subscription;
  }

  /** Closes every subscription (in-flight handlers finish, offsets are committed), then the producer and admin. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
    const producer = this.producerReady;
    const admin = this.adminReady;
    this.producerReady = undefined;
    this.adminReady = undefined;
    await Promise.allSettled([producer?.then((p) => p.disconnect()), admin?.then((a) => a.disconnect())]);
  }
}
