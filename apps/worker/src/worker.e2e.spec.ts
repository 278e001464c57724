import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import type { CommandEnvelope } from '@rewind/messaging';
import { commandMessage, type CommandResultMessage } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { collect, deploymentTestTopics, describeWithKafka, KAFKA_TEST_BROKERS, kafkaDeploymentEnv, testLogger, until } from '@rewind/messaging/kafka/testing';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { databaseFile } from './worker';

const SCRIPT = join(process.cwd(), 'apps/worker/dist/main.js');

interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function spawnWorker(env: Record<string, string>): WorkerProcess {
  if (!existsSync(SCRIPT)) throw new Error(`${SCRIPT} does not exist: run \`npm run build\` first (npm test does it).`);
  const child = spawn(process.execPath, [SCRIPT], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

// Runs the built worker (`npm test` builds first) as real processes against the real broker.
describeWithKafka('the worker process (built), two at once in one consumer group', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-worker-'));
  const topics = deploymentTestTopics('worker-e2e'); // the workers create them
  const workers: WorkerProcess[] = [];
  afterAll(() => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies every command once, publishes every event once, and stops cleanly on SIGTERM', async () => {
    const keys = new SqliteKafkaSigningSecretStore(databaseFile(dataDir));
    const key = await keys.create({ tenantId: 'acme' });
    await keys.close();
    const env = {
      ...kafkaDeploymentEnv(topics),
      KAFKA_CLIENT_ID: 'worker-e2e',
      REWIND_DATA_DIR: dataDir,
      REWIND_LOG_LEVEL: 'log',
      REWIND_WORKER_HTTP_PORT: '0', // two workers on one host: any free port each
    };
    workers.push(spawnWorker(env), spawnWorker(env));
    await until(
      () => workers.every((w) => w.output().includes('Worker is running')),
      `both workers to start:\n${workers.map((w) => w.output()).join('\n---\n')}`,
      40_000,
    );

    const bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, logger: testLogger, clientLogLevel: 'error' });
    const results = await collect(bus, topics.results);
    const events = await collect(bus, topics.events);
    try {
      const commands: CommandEnvelope[] = [];
      for (let s = 0; s < 10; s++) commands.push({ commandId: randomUUID(), type: 'StartSession', tenantId: 'acme', sessionId: `s${s}` });
      for (let i = 0; i < 20; i++)
        commands.push({ commandId: randomUUID(), type: 'WriteMemory', tenantId: 'acme', sessionId: `s${i % 10}`, payload: { key: 'i', value: i } });
      await bus.publish(
        topics.commands,
        commands.map((c) => commandMessage(c, key)),
      );
      const outcomes = () => results.messages.map((m) => JSON.parse(m.value) as CommandResultMessage);
      await until(() => new Set(outcomes().map((o) => o.commandId)).size >= commands.length, 'a result for every command', 40_000);
      await until(() => events.messages.length >= commands.length, 'every event on the events topic', 40_000);

      // A rebalance while the second worker joins may deliver a command twice: the second answer is then `duplicate`.
      const applied = outcomes().filter((o) => o.status === 'applied');
      expect(applied.map((o) => o.commandId).sort()).toEqual(commands.map((c) => c.commandId).sort());
      expect(outcomes().every((o) => o.status === 'applied' || o.status === 'duplicate')).toBe(true);

      const store = new SqliteEventStore({ filename: databaseFile(dataDir) });
      const stored = await store.readAll({ after: 0, limit: 1_000 });
      await store.close();
      expect(stored.map((e) => e.metadata.commandId).sort()).toEqual(commands.map((c) => c.commandId).sort()); // each applied once
      const publishedIds = events.messages.map((m) => m.headers.eventId).sort();
      expect(publishedIds).toEqual(stored.map((e) => e.eventId).sort()); // one relay published, each event once
    } finally {
      await results.subscription.close();
      await events.subscription.close();
      await bus.close();
    }

    for (const w of workers) w.child.kill('SIGTERM');
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes, workers.map((w) => w.output()).join('\n---\n')).toEqual([0, 0]);
    for (const w of workers) {
      expect(w.output()).toContain('Received SIGTERM: finishing in-flight work');
      expect(w.output()).toContain('Worker stopped.');
    }
  });
});
