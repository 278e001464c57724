import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe } from 'vitest';
import type { DeliveredMessage, MessageBus, Subscription } from '../../message-bus';
import type { KafkaMessageBus } from '../kafka-message-bus';
import type { Logger } from '@rewind/config';
import { consoleLogger } from '../logger';

/** The broker the Kafka suites talk to: `REWIND_TEST_KAFKA_BROKERS`, else 127.0.0.1:${KAFKA_PORT:-9092}. */
export const KAFKA_TEST_BROKERS = (process.env.REWIND_TEST_KAFKA_BROKERS ?? `127.0.0.1:${process.env.KAFKA_PORT || 9092}`).split(',');

/** Warnings and errors only: what a person needs when a Kafka test fails. */
export const testLogger: Logger = consoleLogger('kafka-test', 'warn');

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
    describe(name, () => {
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

/** Everything delivered on a topic (own group, from the beginning), for assertions. */
export async function collect(bus: MessageBus, topic: string): Promise<{ messages: DeliveredMessage[]; subscription: Subscription }> {
  const messages: DeliveredMessage[] = [];
  const subscription = await bus.subscribe(topic, { groupId: uniqueName('collector'), fromBeginning: true }, async (m) => {
    messages.push(m);
  });
  return { messages, subscription };
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
