/**
 * Latency from a commit to its projection row, through the library as the API wires it:
 * a session runtime writes one command at a time, a projection supervisor (default runner
 * options, as the API uses) applies it, and a batch hook notes when the batch holding the
 * commit's position is applied (SQLite: the transaction commits synchronously right after).
 *
 *   REWIND_ROOT=/path/to/checkout node test/bench/commit-to-projection.cjs [N] [GAP_MIN_MS] [GAP_MAX_MS]
 *
 * Writes are GAP_MIN..GAP_MAX ms apart (default 5..25, a stream of writes; 60..80 lets the
 * runner go idle between them, which a commit then wakes at once).
 *
 * Runs on a checkout with or without a SubscriptionHub (before/after comparison).
 */
const { createRequire } = require('node:module');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = process.env.REWIND_ROOT ?? process.cwd();
const load = createRequire(join(root, 'package.json'));
const { SqliteEventStore } = load('@rewind/event-store/sqlite');
const { ReadModelDatabase, ProjectionSupervisor } = load('@rewind/projections');
const { createSessionRuntime } = load('@rewind/sagas');
const { InProcessMessageBus } = load('@rewind/messaging/in-process');
let SubscriptionHub = null;
try {
  ({ SubscriptionHub } = load('@rewind/event-store/subscriptions'));
} catch {
  // before: no hub, the runners poll
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const n = Number(process.argv[2] ?? 200);
  const gapMin = Number(process.argv[3] ?? 5);
  const gapMax = Number(process.argv[4] ?? 25);
  const dir = mkdtempSync(join(tmpdir(), 'rewind-commit-latency-'));
  const file = join(dir, 'rewind.db');
  const store = new SqliteEventStore({ filename: file, synchronous: 'NORMAL' });
  const db = await ReadModelDatabase.open({ type: 'sqlite', filename: file, synchronous: 'NORMAL' });
  const hub = SubscriptionHub ? new SubscriptionHub(store) : undefined;
  let waiting = null;
  let applied = 0;
  const supervisor = new ProjectionSupervisor(store, db, {
    projections: ['sessions'],
    idleDelayMs: 250,
    batchSize: 1000,
    logger: { log() {}, warn() {}, error: (m) => console.error(m) },
    ...(hub ? { hub } : {}),
    hooks: {
      beforeCommit: (batch) => {
        applied = Math.max(applied, batch.position);
        if (waiting && applied >= waiting.position) setImmediate(waiting.resolve);
      },
    },
  });
  const runtime = createSessionRuntime(store, { snapshotEvery: 0, bus: new InProcessMessageBus(), ...(hub ? { hub } : {}) });
  const caller = { tenantId: 'bench', actor: 'bench' };
  await runtime.sessions.startSession(caller, { sessionId: 's' });
  supervisor.start();
  await supervisor.catchUp();
  const samples = [];
  const afterCommit = [];
  for (let i = 0; i < n; i++) {
    // A pause between writes, as between real requests.
    await new Promise((resolve) => setTimeout(resolve, gapMin + Math.random() * (gapMax - gapMin)));
    const started = performance.now();
    const projected = new Promise((resolve) => (waiting = { position: Infinity, resolve }));
    await runtime.sessions.execute(caller, 's', { type: 'WriteMemory', key: 'k', value: i });
    const committed = performance.now();
    waiting.position = await store.lastPosition();
    if (applied >= waiting.position) waiting.resolve();
    await projected;
    samples.push(performance.now() - started);
    afterCommit.push(performance.now() - committed);
  }
  await supervisor.stop();
  await db.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const fmt = (ms) => Number(ms.toFixed(1));
  const summary = (values) => {
    values.sort((a, b) => a - b);
    return { p50: fmt(percentile(values, 50)), p90: fmt(percentile(values, 90)), p99: fmt(percentile(values, 99)), max: fmt(values[values.length - 1]) };
  };
  // writeToRow: from the command to its row; afterAck: from the write's acknowledgement to its row.
  console.log(JSON.stringify({ root, hub: Boolean(hub), n, gapMs: [gapMin, gapMax], writeToRowMs: summary(samples), afterAckMs: summary(afterCommit) }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
