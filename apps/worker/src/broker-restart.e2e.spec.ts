import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, onTestFailed } from 'vitest';
import type { CommandEnvelope } from '@rewind/messaging';
import { commandMessage } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import type { Logger } from '@rewind/config';
import { brokerScript, collect, describeWithKafka, until } from '@rewind/messaging/kafka/testing';
import type { DeliveredMessage, Subscription } from '@rewind/messaging';
import type { SigningKey } from '@rewind/messaging';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { databaseFile, startWorker, type Worker } from './worker';
import { loadWorkerConfig } from './worker-config';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port P with P+1 free too (the broker's controller port). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if ((await portFree(port)) && (await portFree(port + 1))) return port;
  }
}

// This suite stops and restarts a broker, so it runs its OWN broker (scripts/kafka/broker.sh
// on a free port) instead of the shared one the other Kafka suites use at the same time.
describeWithKafka('the worker across a broker stop and restart under a steady command load', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-restart-'));
  let port = 0;
  let env: Record<string, string> = {};
  let runDir: string | undefined;
  const logs: string[] = [];
  const capture = (context: string): Logger => ({
    log: (m) => logs.push(`${context} ${m}`),
    warn: (m) => logs.push(`${context} WARN ${m}`),
    error: (m) => logs.push(`${context} ERROR ${m}`),
  });

  beforeAll(async () => {
    port = await freePortPair();
    env = { KAFKA_PORT: String(port) };
    const started = await brokerScript(['start'], env);
    runDir = /\(logs: (.+)\/logs\)/.exec(started.output)?.[1]; // broker.sh's run dir for this port (config, logs)
    if (started.code !== 0) throw new Error(`Could not start a second Kafka broker on port ${port} for this suite:\n${started.output}`);
  }, 150_000);

  afterAll(async () => {
    if (port) await brokerScript(['stop', '--purge'], env);
    if (runDir?.endsWith(`run-${port}`)) rmSync(runDir, { recursive: true, force: true }); // a throw-away port: leave nothing behind
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('applies every command exactly once and publishes every event at least once', async () => {
    onTestFailed(() => {
      process.stderr.write(`\nLast worker log lines:\n${logs.slice(-60).join('\n')}\n`);
    });
    const brokers = `127.0.0.1:${port}`;
    const keys = new SqliteKafkaSigningSecretStore(databaseFile(dataDir));
    const key: SigningKey = await keys.create({ tenantId: 'acme' });
    await keys.close();

    const worker: Worker = await startWorker(
      loadWorkerConfig({
        REWIND_BUS: 'kafka',
        KAFKA_BROKERS: brokers,
        REWIND_DATA_DIR: dataDir,
        REWIND_COMMAND_MAX_ATTEMPTS: '50',
        REWIND_WORKER_HTTP_PORT: '0',
      }),
      capture,
    );
    const client = new KafkaMessageBus({ brokers: [brokers], clientId: 'load', logger: capture('load'), clientLogLevel: 'nothing' });
    let events: { messages: DeliveredMessage[]; subscription: Subscription } | undefined;
    try {
      events = await collect(client, worker.topics.events);
      const sessions = ['s0', 's1', 's2', 's3', 's4'];
      const commands: CommandEnvelope[] = [
        ...sessions.map((sessionId): CommandEnvelope => ({ commandId: randomUUID(), type: 'StartSession', tenantId: 'acme', sessionId })),
      ];
      const sent = new Set<string>();
      let failedSends = 0;
      let running = true;

      // Steady load (about 25 commands/s). Like a real client, a send that fails is retried
      // until the broker takes it; a send that failed after all may have been written, and
      // then reaches the worker twice.
      const load = (async () => {
        for (let i = 0; running || i < commands.length; i++) {
          if (i >= commands.length) {
            commands.push({
              commandId: randomUUID(),
              type: 'WriteMemory',
              tenantId: 'acme',
              sessionId: sessions[i % sessions.length]!,
              payload: { key: 'n', value: i },
            });
          }
          const command = commands[i]!;
          for (;;) {
            try {
              await client.publish(worker.topics.commands, [commandMessage(command, key)]);
              sent.add(command.commandId);
              break;
            } catch {
              failedSends++;
              await sleep(250);
            }
          }
          await sleep(40);
        }
      })();

      await sleep(3_000);
      const stopped = await brokerScript(['stop'], env);
      expect(stopped.code, stopped.output).toBe(0);
      await sleep(3_000); // the broker stays down while commands keep coming
      const restarted = await brokerScript(['start'], env);
      expect(restarted.code, restarted.output).toBe(0);
      await sleep(3_000);
      running = false;
      await load;
      expect(failedSends).toBeGreaterThan(0); // the outage really happened under load

      // Every command sent is applied exactly once.
      const appliedCounts = async () => {
        const counts = new Map<string, number>();
        for (const e of await worker.store.readAll({ after: 0, limit: 1_000_000 }))
          counts.set(e.metadata.commandId, (counts.get(e.metadata.commandId) ?? 0) + 1);
        return counts;
      };
      await until(
        async () => {
          const counts = await appliedCounts();
          return [...sent].every((id) => counts.has(id));
        },
        'every sent command in the store',
        90_000,
      );
      const counts = await appliedCounts();
      expect(sent.size).toBe(commands.length);
      expect([...sent].filter((id) => counts.get(id) !== 1)).toEqual([]);
      expect(counts.size).toBe(sent.size);

      // Every committed event is on the events topic at least once.
      const stored = await worker.store.readAll({ after: 0, limit: 1_000_000 });
      await until(
        () => {
          const seen = new Set(events!.messages.map((m) => m.headers.eventId));
          return stored.every((e) => seen.has(e.eventId));
        },
        'every stored event on the events topic',
        90_000,
      );
      await until(async () => (await worker.relay!.lag()) === 0, 'the relay checkpoint to catch up', 30_000);
      expect(events.messages.length).toBeGreaterThanOrEqual(stored.length);
    } finally {
      await events?.subscription.close();
      await client.close();
      await worker.stop();
    }
  }, 180_000);
});
