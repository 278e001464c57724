import { EnvReader } from '@rewind/config';

/**
 * Kafka settings, read from the environment. Every variable is documented in
 * docs/asyncapi.yaml (servers / topics) and docs/operations/configuration.md.
 */

export interface RewindTopics {
  /** Command envelopes in (key = sessionId). */
  commands: string;
  /** One outcome per command (key = commandId). */
  commandResults: string;
  /** Commands that were malformed, unauthenticated or rejected for good, with the reason in headers. */
  commandsDlq: string;
  /** Every committed event (key = sessionId). */
  events: string;
}

export const DEFAULT_TOPICS: RewindTopics = {
  commands: 'rewind.commands',
  commandResults: 'rewind.command-results',
  commandsDlq: 'rewind.commands.dlq',
  events: 'rewind.events',
};

export interface KafkaTopicSpec {
  topic: string;
  numPartitions: number;
  replicationFactor: number;
  /** Topic-level configuration, e.g. `max.message.bytes`. */
  configEntries?: { name: string; value: string }[];
}

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  topics: RewindTopics;
  partitions: Record<keyof RewindTopics, number>;
  replicationFactor: number;
  /** Create missing topics at start (admin CreateTopics; existing topics are left as they are). */
  createTopics: boolean;
  /** `max.message.bytes` of the topics Rewind creates: events can be as large as an HTTP body. */
  maxMessageBytes: number;
  /** Consumer group timing: how soon a crashed worker's partitions move to another (see docs/operations/distributed-setup.md). */
  consumer: { sessionTimeoutMs: number; heartbeatIntervalMs: number; rebalanceTimeoutMs: number };
}

export class KafkaConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KafkaConfigError';
  }
}

const TOPIC_NAME = /^[A-Za-z0-9._-]{1,249}$/;
const TOPIC_ENV: Record<keyof RewindTopics, string> = {
  commands: 'KAFKA_TOPIC_COMMANDS',
  commandResults: 'KAFKA_TOPIC_COMMAND_RESULTS',
  commandsDlq: 'KAFKA_TOPIC_COMMANDS_DLQ',
  events: 'KAFKA_TOPIC_EVENTS',
};

/** `host:port[,host:port...]`; each entry is checked so that a typo fails at start, not at first use. */
export function parseBrokers(raw: string, name = 'KAFKA_BROKERS'): string[] {
  const brokers = raw
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
  if (brokers.length === 0) throw new KafkaConfigError(`${name} is empty: give at least one broker as host:port, e.g. 127.0.0.1:9092.`);
  for (const broker of brokers) {
    const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(broker);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) {
      throw new KafkaConfigError(`${name} entry "${broker}" is not valid: expected host:port, e.g. 127.0.0.1:9092 (several separated by commas).`);
    }
  }
  return brokers;
}

export function loadKafkaSettings(env: NodeJS.ProcessEnv = process.env, defaults: { clientId?: string } = {}): KafkaSettings {
  const read = new EnvReader(env, (message) => new KafkaConfigError(message));
  const topics = { ...DEFAULT_TOPICS };
  for (const key of Object.keys(TOPIC_ENV) as (keyof RewindTopics)[]) {
    const raw = env[TOPIC_ENV[key]];
    if (raw === undefined || raw === '') continue;
    if (!TOPIC_NAME.test(raw)) {
      throw new KafkaConfigError(`${TOPIC_ENV[key]}="${raw}" is not a valid Kafka topic name: use 1-249 letters, digits, ".", "_" or "-".`);
    }
    topics[key] = raw;
  }
  const names = Object.values(topics);
  if (new Set(names).size !== names.length) throw new KafkaConfigError(`The Kafka topics must all differ; got ${names.join(', ')}.`);
  const partitions = read.integer('KAFKA_PARTITIONS', 3, 1, 10_000);
  const clientId = env.KAFKA_CLIENT_ID || defaults.clientId || 'rewind';
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(clientId))
    throw new KafkaConfigError(`KAFKA_CLIENT_ID="${clientId}" is not valid: use 1-200 letters, digits, ".", "_" or "-".`);
  return {
    brokers: parseBrokers(env.KAFKA_BROKERS || '127.0.0.1:9092'),
    clientId,
    topics,
    partitions: {
      commands: read.integer('KAFKA_TOPIC_COMMANDS_PARTITIONS', partitions, 1, 10_000),
      commandResults: read.integer('KAFKA_TOPIC_COMMAND_RESULTS_PARTITIONS', partitions, 1, 10_000),
      commandsDlq: read.integer('KAFKA_TOPIC_COMMANDS_DLQ_PARTITIONS', partitions, 1, 10_000),
      events: read.integer('KAFKA_TOPIC_EVENTS_PARTITIONS', partitions, 1, 10_000),
    },
    replicationFactor: read.integer('KAFKA_REPLICATION_FACTOR', 1, 1, 100),
    createTopics: read.boolean('KAFKA_CREATE_TOPICS', true),
    maxMessageBytes: read.integer('KAFKA_MAX_MESSAGE_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    consumer: consumerTiming(read),
  };
}

/**
 * The consumer group's timing. The broker bounds the session timeout (group.min.session.timeout.ms,
 * 6 000 by default, to group.max.session.timeout.ms); a heartbeat must come well within it.
 */
function consumerTiming(read: EnvReader): KafkaSettings['consumer'] {
  // 6 s: the broker's default group.min.session.timeout.ms, the shortest failover it allows (5 heartbeats of 1.2 s).
  const sessionTimeoutMs = read.integer('KAFKA_SESSION_TIMEOUT_MS', 6_000, 1_000, 1_800_000);
  const heartbeatDefault = Math.max(500, Math.floor(sessionTimeoutMs / 5));
  const heartbeatIntervalMs = read.integer('KAFKA_HEARTBEAT_INTERVAL_MS', heartbeatDefault, 100, 600_000);
  if (heartbeatIntervalMs * 3 > sessionTimeoutMs) {
    throw new KafkaConfigError(
      `KAFKA_HEARTBEAT_INTERVAL_MS="${heartbeatIntervalMs}" is not valid: it must be at most a third of KAFKA_SESSION_TIMEOUT_MS (${sessionTimeoutMs}), so that a late heartbeat does not cost the worker its partitions.`,
    );
  }
  return { sessionTimeoutMs, heartbeatIntervalMs, rebalanceTimeoutMs: read.integer('KAFKA_REBALANCE_TIMEOUT_MS', 60_000, 1_000, 1_800_000) };
}

/** The four Rewind topics with their partition counts, as `ensureTopics` takes them. */
export function rewindTopicSpecs(settings: Pick<KafkaSettings, 'topics' | 'partitions' | 'replicationFactor' | 'maxMessageBytes'>): KafkaTopicSpec[] {
  return (Object.keys(settings.topics) as (keyof RewindTopics)[]).map((key) => ({
    topic: settings.topics[key],
    numPartitions: settings.partitions[key],
    replicationFactor: settings.replicationFactor,
    configEntries: [{ name: 'max.message.bytes', value: String(settings.maxMessageBytes) }],
  }));
}
