import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel, type Producer, type ProducerRecord } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import type { BusMessage, DeliveredMessage, MessageBus, Subscription } from '../../message-bus';
import { KafkaMessageBus } from '../kafka-message-bus';
import type { Logger } from '@rewind/config';
import { consoleLogger } from '../logger';
import { AsyncApiContract, type ContractChannel } from './asyncapi-contract';

/** The broker the Kafka suites talk to: `REWIND_TEST_KAFKA_BROKERS`, else 127.0.0.1:${KAFKA_PORT:-9092}. */
export const KAFKA_TEST_BROKERS = (process.env.REWIND_TEST_KAFKA_BROKERS ?? `127.0.0.1:${process.env.KAFKA_PORT || 9092}`).split(',');

/**
 * Errors only: the suites make handlers fail on purpose (retries, dead letters), and each of
 * those warns; `REWIND_TEST_KAFKA_LOG=warn` shows them when a Kafka test fails.
 */
export const testLogger: Logger = consoleLogger('kafka-test', process.env.REWIND_TEST_KAFKA_LOG === 'warn' ? 'warn' : 'error');

/** Unique per test run, so that suites running at the same time never share a topic or group. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

function tcpReachable(hostPort: string, timeoutMs = 2_000): boolean {
  const i = hostPort.lastIndexOf(':');
  const script = `const s=require('net').connect(${Number(hostPort.slice(i + 1))},${JSON.stringify(hostPort.slice(0, i))});s.setTimeout(${timeoutMs},()=>process.exit(1));s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));`;
  return spawnSync(process.execPath, ['-e', script], { timeout: timeoutMs + 2_000 }).status === 0;
}

let reachable: boolean | undefined;
const testTopics = new Set<string>();

/** Marks topics for deletion when the suite ends, so that a long-lived broker does not fill up with test topics. */
export function trackTopics(...topics: string[]): void {
  for (const topic of topics) testTopics.add(topic);
}

/** A deployment's four topics, named after a fresh prefix; deleted when the suite ends (the API or worker creates them). */
export interface DeploymentTestTopics {
  commands: string;
  results: string;
  dlq: string;
  events: string;
}

export function deploymentTestTopics(name: string): DeploymentTestTopics {
  const prefix = uniqueName(name);
  const topics = { commands: `${prefix}.commands`, results: `${prefix}.results`, dlq: `${prefix}.dlq`, events: `${prefix}.events` };
  trackTopics(...Object.values(topics));
  channelOfTopic.set(topics.commands, 'commands').set(topics.results, 'commandResults').set(topics.dlq, 'commandsDlq').set(topics.events, 'events');
  return topics;
}

/** The environment that points an API or a worker at the test broker and these topics, in a commands group of its own. */
export function kafkaDeploymentEnv(topics: DeploymentTestTopics) {
  return {
    REWIND_BUS: 'kafka',
    KAFKA_BROKERS: KAFKA_TEST_BROKERS.join(','),
    KAFKA_TOPIC_COMMANDS: topics.commands,
    KAFKA_TOPIC_COMMAND_RESULTS: topics.results,
    KAFKA_TOPIC_COMMANDS_DLQ: topics.dlq,
    KAFKA_TOPIC_EVENTS: topics.events,
    KAFKA_COMMANDS_GROUP_ID: uniqueName('group'),
  };
}

/** Creates fresh test topics (deleted when the suite ends). */
export async function createTopics(bus: KafkaMessageBus, topics: string[], numPartitions = 3): Promise<void> {
  trackTopics(...topics);
  await bus.ensureTopics(topics.map((topic) => ({ topic, numPartitions, replicationFactor: 1 })));
}

async function deleteTestTopics(): Promise<void> {
  const topics = [...testTopics];
  testTopics.clear();
  if (topics.length === 0) return;
  const admin = new Kafka({ brokers: KAFKA_TEST_BROKERS, clientId: 'rewind-test-cleanup', logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    const existing = new Set(await admin.listTopics());
    const doomed = topics.filter((t) => existing.has(t));
    if (doomed.length > 0) await admin.deleteTopics({ topics: doomed });
  } catch (error) {
    process.stderr.write(`Could not delete the test topics ${topics.join(', ')}: ${String(error)}\n`);
  } finally {
    await admin.disconnect();
  }
}

/**
 * A describe block for suites that need the real broker. When it cannot be reached the
 * suite FAILS if `CI` is set, and is skipped with a loud warning otherwise (a laptop
 * without Java can still run `npm test`). Start the broker with
 * `bash scripts/kafka/broker.sh start`.
 */
export function describeWithKafka(name: string, body: () => void): void {
  reachable ??= KAFKA_TEST_BROKERS.some((b) => tcpReachable(b));
  const why =
    `No Kafka broker answers at ${KAFKA_TEST_BROKERS.join(',')}. Start one with \`bash scripts/kafka/broker.sh start\` ` +
    '(or point REWIND_TEST_KAFKA_BROKERS / KAFKA_PORT at yours).';
  if (reachable) {
    checkSentMessages();
    describe(name, () => {
      afterEach(() => {
        expect(contractViolations.splice(0), 'messages that do not match docs/asyncapi.yaml').toEqual([]);
      });
      afterAll(deleteTestTopics, 30_000);
      body();
    });
  } else if (process.env.CI) {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${why} CI is set, so the Kafka suites fail instead of being skipped.`);
      });
      body();
    });
  } else {
    process.stderr.write(`\nSKIPPING "${name}": ${why} (With CI set these suites fail instead.)\n`);
    describe.skip(`${name} [skipped: no Kafka broker reachable and CI is not set; npm test starts one when Java and Maven are installed]`, body);
  }
}

export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Which AsyncAPI channel a topic is: the defaults, and the deployments' test topics. */
const channelOfTopic = new Map<string, ContractChannel>([
  ['rewind.commands', 'commands'],
  ['rewind.command-results', 'commandResults'],
  ['rewind.commands.dlq', 'commandsDlq'],
  ['rewind.events', 'events'],
]);
/** A topic's channel: registered, else read from the name's end as the defaults and test topics end. */
function channelOf(topic: string): ContractChannel | undefined {
  const known = channelOfTopic.get(topic);
  if (known) return known;
  if (/[.-](command-)?results$/.test(topic)) return 'commandResults';
  if (/[.-]dlq$/.test(topic)) return 'commandsDlq';
  if (/[.-]events$/.test(topic)) return 'events';
  if (/[.-]commands$/.test(topic)) return 'commands';
  return undefined;
}
let contract: Promise<AsyncApiContract> | undefined;
/** Messages collected that do not match docs/asyncapi.yaml: describeWithKafka fails the test they arrived in. */
const contractViolations: string[] = [];

/**
 * Everything delivered on a topic (own group, from the beginning), for assertions. A message on a
 * commands, results, DLQ or events topic is checked against docs/asyncapi.yaml (with the official parser): one that does
 * not match fails the test (describeWithKafka).
 */
export async function collect(bus: MessageBus, topic: string): Promise<{ messages: DeliveredMessage[]; subscription: Subscription }> {
  const messages: DeliveredMessage[] = [];
  const channel = channelOf(topic);
  const checker = channel ? await (contract ??= AsyncApiContract.load()) : null;
  const subscription = await bus.subscribe(topic, { groupId: uniqueName('collector'), fromBeginning: true }, async (m) => {
    const problem = checker && channel ? checker.check(channel, m) : null;
    if (problem) contractViolations.push(`${topic}@${m.partition}:${m.offset}: ${problem}`);
    messages.push(m);
  });
  return { messages, subscription };
}

/** Messages a test sends off the contract on purpose (poison): they must FAIL docs/asyncapi.yaml. */
const deliberatelyOffContract = new WeakSet<object>();

/** Marks a message a test sends as poison on purpose: it is checked to fail docs/asyncapi.yaml (the document must refuse it). */
export function offContract<M extends BusMessage>(message: M): M {
  deliberatelyOffContract.add(message);
  return message;
}

/** Checks one message sent to `topic` (if it is a contract channel's): on the contract, or off it exactly when marked so. */
async function checkSent(topic: string, message: BusMessage, marked: object = message): Promise<void> {
  const channel = channelOf(topic);
  if (!channel) return;
  const problem = (await (contract ??= AsyncApiContract.load())).check(channel, message);
  if (deliberatelyOffContract.has(marked)) {
    if (problem === null)
      contractViolations.push(`sent to ${topic} off the contract on purpose, yet docs/asyncapi.yaml accepts it: ${message.value.slice(0, 300)}`);
  } else if (problem !== null) {
    contractViolations.push(`sent to ${topic}: ${problem}`);
  }
}

let checkingSent = false;
/**
 * Every message published through a KafkaMessageBus in a process running Kafka suites (the
 * tests' own and what the product sends in process: events, results, dead letters) is checked
 * against docs/asyncapi.yaml before it goes out; describeWithKafka fails the test on a mismatch.
 */
function checkSentMessages(): void {
  if (checkingSent) return;
  checkingSent = true;
  const publish = KafkaMessageBus.prototype.publish;
  KafkaMessageBus.prototype.publish = async function (this: KafkaMessageBus, topic: string, messages: BusMessage[]): Promise<void> {
    for (const message of messages) await checkSent(topic, message);
    return publish.call(this, topic, messages);
  };
}

/** A kafkajs producer whose sends are checked against docs/asyncapi.yaml as they go out (for suites that produce without the bus). */
export function contractCheckedProducer<P extends Pick<Producer, 'send'>>(producer: P): P {
  return {
    ...producer,
    send: async (record: ProducerRecord) => {
      for (const m of record.messages) {
        const headers = Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, String(Array.isArray(v) ? v[0] : v)]));
        const key = m.key === undefined || m.key === null ? null : String(m.key);
        await checkSent(record.topic, { key, value: String(m.value), headers }, m);
      }
      return producer.send(record);
    },
  } as P;
}

/** Runs `bash scripts/kafka/broker.sh <args>` with the given environment; resolves with its exit code and output. */
export function brokerScript(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(process.cwd(), 'scripts/kafka/broker.sh'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}
