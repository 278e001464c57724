/* global process, console, setTimeout */
// Measures how long a worker that was SIGKILLed and restarted takes to consume commands and
// publish events again, against the real broker (bash scripts/kafka/broker.sh start) and the
// built worker (npm run build). Usage: node scripts/kafka/measure-failover.mjs [runs]
// Prints, per configuration, the seconds from the restart to the first command result and to
// the first published event of a command sent right after the restart.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandMessage } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { silentLogger } from '@rewind/messaging';

const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const WORKER = join(process.cwd(), 'apps/worker/dist/main.js');
const runs = Number(process.argv[2] ?? 3);

const CONFIGURATIONS = {
  'before (KAFKA_SESSION_TIMEOUT_MS=10000, REWIND_RELAY_LEASE_MS=10000)': { KAFKA_SESSION_TIMEOUT_MS: '10000', REWIND_RELAY_LEASE_MS: '10000' },
  'defaults (session 6 s, lease 6 s), restarted under a new id': {},
  'defaults, restarted under the same REWIND_WORKER_ID': { REWIND_WORKER_ID: 'worker-0' },
};

function startWorker(env) {
  const child = spawn(process.execPath, [WORKER], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return { child, output: () => output };
}

async function waitFor(condition, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function measure(extraEnv) {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-failover-'));
  const id = randomUUID().slice(0, 8);
  const topics = { commands: `fo-${id}.commands`, results: `fo-${id}.results`, dlq: `fo-${id}.dlq`, events: `fo-${id}.events` };
  const keys = new SqliteKafkaSigningSecretStore(join(dataDir, 'rewind.db'));
  const key = await keys.create({ tenantId: 'acme' });
  await keys.close();
  const env = {
    REWIND_BUS: 'kafka',
    KAFKA_BROKERS: BROKERS.join(','),
    KAFKA_TOPIC_COMMANDS: topics.commands,
    KAFKA_TOPIC_COMMAND_RESULTS: topics.results,
    KAFKA_TOPIC_COMMANDS_DLQ: topics.dlq,
    KAFKA_TOPIC_EVENTS: topics.events,
    KAFKA_COMMANDS_GROUP_ID: `fo-${id}`,
    KAFKA_PARTITIONS: '1',
    REWIND_DATA_DIR: dataDir,
    REWIND_WORKER_HTTP: 'off',
    REWIND_LOG_LEVEL: 'log',
    ...extraEnv,
  };
  const bus = new KafkaMessageBus({ brokers: BROKERS, logger: silentLogger, clientLogLevel: 'nothing' });
  const results = new Set();
  const events = new Set();
  let first = startWorker(env);
  try {
    // The first worker creates the topics; then the probe subscribes and the worker proves it consumes.
    await waitFor(() => first.output().includes('Worker is running') || first.child.exitCode !== null, 'the first worker to start');
    if (first.child.exitCode !== null) throw new Error(`the worker exited:\n${first.output()}`);
    const resultSub = await bus.subscribe(
      topics.results,
      { groupId: `probe-r-${id}`, fromBeginning: true },
      async (m) => void results.add(JSON.parse(m.value).commandId),
    );
    const eventSub = await bus.subscribe(topics.events, { groupId: `probe-e-${id}`, fromBeginning: true }, async (m) => void events.add(m.headers.eventId));
    const send = async (type, sessionId) => {
      const command = { commandId: randomUUID(), type, tenantId: 'acme', sessionId, ...(type === 'WriteMemory' ? { payload: { key: 'k', value: 1 } } : {}) };
      await bus.publish(topics.commands, [commandMessage(command, key)]);
      return command.commandId;
    };
    const warm = await send('StartSession', 's1');
    await waitFor(() => results.has(warm), 'the first worker to answer');
    const eventsBefore = events.size;

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const restartedAt = Date.now();
    const second = startWorker(env);
    first = second;
    const probe = await send('WriteMemory', 's1');
    await waitFor(() => results.has(probe), 'the restarted worker to answer', 120_000);
    const resultAfter = (Date.now() - restartedAt) / 1000;
    await waitFor(() => events.size > eventsBefore, 'the restarted worker to publish the event', 120_000);
    const eventAfter = (Date.now() - restartedAt) / 1000;
    await resultSub.close();
    await eventSub.close();
    return { resultAfter, eventAfter };
  } finally {
    first.child.kill('SIGTERM');
    await new Promise((resolve) => (first.child.exitCode === null ? first.child.once('exit', resolve) : resolve()));
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const [name, env] of Object.entries(CONFIGURATIONS)) {
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await measure(env));
  const fmt = (key) => samples.map((s) => s[key].toFixed(1)).join(', ');
  console.log(`${name}\n  restart -> first command result (s): ${fmt('resultAfter')}\n  restart -> first published event (s): ${fmt('eventAfter')}`);
}
