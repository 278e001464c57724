/**
 * Kafka end-to-end latency: from handing a signed command to the producer until its event
 * arrives on the events topic (command → worker consumer → SessionService → SQLite append
 * → relay → broker → this consumer), at a steady rate.
 *
 * Needs a broker (bash scripts/kafka/broker.sh start) and the build (npm run build):
 *   node dist/test/bench/kafka-latency.bench.js
 * Environment: KAFKA_BROKERS (127.0.0.1:9092), BENCH_RATE (commands/s, 200),
 * BENCH_SECONDS (20), BENCH_WARMUP_SECONDS (5, not counted), BENCH_SESSIONS (50).
 *
 * The worker runs as its own process (the built apps/worker), on fresh topics and a fresh
 * data dir; both are removed at the end.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { StoredEvent } from '@rewind/event-store';
import type { CommandEnvelope } from '@rewind/messaging';
import { commandMessage } from '@rewind/messaging';
import { parseBrokers } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { consoleLogger } from '@rewind/messaging';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { fmt, summarize } from './stats';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

async function main(): Promise<void> {
  const brokers = parseBrokers(process.env.KAFKA_BROKERS || '127.0.0.1:9092');
  const rate = num('BENCH_RATE', 200);
  const seconds = num('BENCH_SECONDS', 20);
  const warmup = num('BENCH_WARMUP_SECONDS', 5);
  const sessionCount = num('BENCH_SESSIONS', 50);
  const workerScript = join(__dirname, '../../../apps/worker/dist/main.js'); // dist/test/bench -> apps/worker/dist
  if (!existsSync(workerScript)) throw new Error(`${workerScript} is missing: run \`npm run build\` first.`);

  const run = `bench-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const topics = { commands: `${run}.commands`, results: `${run}.command-results`, dlq: `${run}.commands.dlq`, events: `${run}.events` };
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-kafka-bench-'));
  const keys = new SqliteKafkaSigningSecretStore(join(dataDir, 'rewind.db'));
  const key = await keys.create({ tenantId: 'bench', name: 'latency bench' });
  await keys.close();

  const bus = new KafkaMessageBus({ brokers, clientId: 'rewind-bench', logger: consoleLogger('bench', 'warn'), clientLogLevel: 'error' });
  await bus.ensureTopics(Object.values(topics).map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })));

  const worker = spawn(process.execPath, [workerScript], {
    env: {
      ...process.env,
      REWIND_BUS: 'kafka',
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_TOPIC_COMMANDS: topics.commands,
      KAFKA_TOPIC_COMMAND_RESULTS: topics.results,
      KAFKA_TOPIC_COMMANDS_DLQ: topics.dlq,
      KAFKA_TOPIC_EVENTS: topics.events,
      KAFKA_COMMANDS_GROUP_ID: `${run}-commands`,
      KAFKA_CREATE_TOPICS: 'false',
      REWIND_DATA_DIR: dataDir,
      REWIND_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const workerExited = new Promise<number | null>((resolve) => worker.once('exit', resolve));

  const sentAt = new Map<string, number>();
  const sentWall = new Map<string, number>();
  const latencies = new Map<string, number>();
  /** Split at the event's occurredAt (the worker's clock when it decided; same machine): command → decided, decided → consumed. */
  const toDecided = new Map<string, number>();
  const toConsumed = new Map<string, number>();
  let duplicates = 0;
  const events = await bus.subscribe(topics.events, { groupId: `${run}-reader`, fromBeginning: true }, async (m) => {
    const now = performance.now();
    const wall = Date.now();
    const { commandId, occurredAt } = (JSON.parse(m.value) as StoredEvent).metadata;
    const start = sentAt.get(commandId);
    if (start === undefined) return;
    if (latencies.has(commandId)) {
      duplicates++;
      return;
    }
    latencies.set(commandId, now - start);
    const decided = Date.parse(occurredAt);
    toDecided.set(commandId, decided - sentWall.get(commandId)!);
    toConsumed.set(commandId, wall - decided);
  });

  const send = (commands: CommandEnvelope[]) => {
    const at = performance.now();
    const wall = Date.now();
    for (const c of commands) {
      sentAt.set(c.commandId, at);
      sentWall.set(c.commandId, wall);
    }
    return bus.publish(
      topics.commands,
      commands.map((c) => commandMessage(c, key)),
    );
  };

  try {
    // Sessions first; their events also tell us the worker is up and the pipeline is warm.
    const sessions = Array.from({ length: sessionCount }, (_, i) => `s${i}`);
    const starts = sessions.map((sessionId): CommandEnvelope => ({ commandId: randomUUID(), type: 'StartSession', tenantId: 'bench', sessionId }));
    await send(starts);
    const deadline = Date.now() + 60_000;
    while (!starts.every((c) => latencies.has(c.commandId))) {
      if (Date.now() > deadline)
        throw new Error('The worker did not process the StartSession commands within 60 s: is the broker up? See the worker output above.');
      if (worker.exitCode !== null) throw new Error(`The worker exited with code ${worker.exitCode}.`);
      await sleep(20);
    }

    console.log(
      `Kafka latency: command produced → event consumed, ${rate} commands/s for ${seconds} s (+${warmup} s warm-up), ${sessionCount} sessions, brokers ${brokers.join(',')}`,
    );
    const measured: string[] = [];
    const inflight: Promise<void>[] = [];
    let sendErrors = 0;
    const total = Math.round(rate * (seconds + warmup));
    const begin = performance.now();
    let issued = 0;
    while (issued < total) {
      const due = Math.min(total, Math.floor(((performance.now() - begin) / 1000) * rate));
      if (due > issued) {
        const batch: CommandEnvelope[] = [];
        for (; issued < due; issued++) {
          const command: CommandEnvelope = {
            commandId: randomUUID(),
            type: 'RecordMessage',
            tenantId: 'bench',
            sessionId: sessions[issued % sessions.length]!,
            payload: { role: issued % 2 ? 'agent' : 'user', content: `message ${issued}: where should we stay near the old town?` },
          };
          if (issued >= rate * warmup) measured.push(command.commandId);
          batch.push(command);
        }
        inflight.push(send(batch).catch(() => void sendErrors++));
      }
      await sleep(2);
    }
    const elapsed = (performance.now() - begin) / 1000;
    await Promise.all(inflight);
    const waitUntil = Date.now() + 30_000;
    while (measured.some((id) => !latencies.has(id)) && Date.now() < waitUntil) await sleep(50);

    const samples = measured.filter((id) => latencies.has(id)).map((id) => latencies.get(id)!);
    const missing = measured.length - samples.length;
    console.log(`  sent ${total} commands in ${elapsed.toFixed(1)} s (${(total / elapsed).toFixed(0)}/s); measured ${measured.length} after the warm-up`);
    console.log(`  command → event published: ${fmt(summarize(samples))}  max ${summarize(samples).max.toFixed(1)} ms`);
    const part = (m: Map<string, number>) => summarize(measured.filter((id) => m.has(id)).map((id) => m.get(id)!));
    const short = (x: ReturnType<typeof summarize>) => `p50 ${x.p50.toFixed(0)} ms  p99 ${x.p99.toFixed(0)} ms`;
    console.log(
      `    of which command → appended by the worker: ${short(part(toDecided))}; appended → event consumed (relay + broker): ${short(part(toConsumed))} (ms clock)`,
    );
    console.log(`  missing after 30 s: ${missing}; events seen twice: ${duplicates}; send errors: ${sendErrors}`);
    if (missing > 0 || sendErrors > 0) process.exitCode = 1;
  } finally {
    await events.close();
    worker.kill('SIGTERM');
    const code = await workerExited;
    if (code !== 0) console.error(`The worker exited with code ${code} after SIGTERM.`);
    const admin = await bus.admin();
    await admin.deleteTopics({ topics: Object.values(topics) }).catch((e: unknown) => console.error(`Could not delete the bench topics: ${String(e)}`));
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
