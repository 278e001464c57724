/**
 * Two-stage memory indexing, measured (issues 26 and 27; `npm run build && node dist/test/bench/two-stage-index.bench.js`):
 *
 * 1. CPU cost per item of each stage, on this process's CPU time (process.cpuUsage: onnxruntime's
 *    threads included): stage 1 (`admit`: item row + FTS5, no model), stage 2 (`embedPending`:
 *    the local model, then the vectors and codes attached), and one stage (embed + upsert) beside them.
 * 2. A short overload (`--overload-seconds`, default 60): writers in this process append turns as
 *    fast as they can while the indexer runs as the API runs it (a worker thread at nice 19,
 *    cpuShare 0.5), once with two stages and once with one; the status is sampled every second
 *    (events not yet searchable, items not yet embedded), then each lag's catch-up is timed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SessionRepository, SessionService } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import { InMemoryPolicyStore, LocalItemWriter, MemoryIndexer, type MemoryItem } from '@rewind/memory';
import { OnnxEmbeddingModel } from '@rewind/memory/onnx';
import { memoryConfigFromEnv, sqliteIndexFor, ThreadItemWriter } from '@rewind/memory/runtime';
import { SqliteVectorIndex } from '@rewind/memory/sqlite-vec';

const WORDS = ['castle', 'river', 'museum', 'train', 'budget', 'hotel', 'dinner', 'flight', 'garden', 'market', 'bridge', 'harbour'];
const sentence = (i: number) =>
  `Turn ${i}: we talked about the ${WORDS[i % WORDS.length]} and the ${WORDS[(i * 7) % WORDS.length]} near the ${WORDS[(i * 5) % WORDS.length]} in the afternoon, and agreed to book it.`;

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function items(n: number, offset = 0): MemoryItem[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    return {
      id: `e${i}:0`,
      tenantId: 'bench',
      sessionId: `s${i % 20}`,
      eventId: `e${i}`,
      version: i + 2,
      globalPosition: i + 1,
      role: i % 2 ? 'agent' : 'user',
      occurredAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      chunk: 0,
      text: sentence(i),
      ...(i > 0 ? { context: sentence(i - 1) } : {}),
    } satisfies MemoryItem;
  });
}

async function stageCosts(dir: string, n: number): Promise<void> {
  const model = new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q', intraOpThreads: 1 });
  const info = await model.info();
  await model.embed(['warm-up sentence for the model']);
  for (const kind of ['two stages', 'one stage'] as const) {
    const index = new SqliteVectorIndex({ filename: join(dir, `costs-${kind.replace(' ', '-')}.memory.db`) });
    await index.open(info);
    const writer = new LocalItemWriter({ model, index });
    const all = items(n);
    if (kind === 'two stages') {
      let [cpu, wall] = [cpuMs(), performance.now()];
      for (let i = 0; i < all.length; i += 256) await index.admit(all.slice(i, i + 256));
      const admitCpu = cpuMs() - cpu;
      const admitWall = performance.now() - wall;
      [cpu, wall] = [cpuMs(), performance.now()];
      while ((await writer.embedPending(128)) > 0);
      const embedCpu = cpuMs() - cpu;
      const embedWall = performance.now() - wall;
      console.log(
        `stage 1 (admit): ${n} items, ${admitCpu.toFixed(0)} ms CPU (${Math.round(n / (admitCpu / 1000))} items per CPU s; wall ${Math.round(n / (admitWall / 1000))}/s)`,
      );
      console.log(
        `stage 2 (embedPending): ${n} items, ${embedCpu.toFixed(0)} ms CPU (${Math.round(n / (embedCpu / 1000))} items per CPU s; wall ${Math.round(n / (embedWall / 1000))}/s)`,
      );
      if ((await index.pendingVectors()).items !== 0) throw new Error('stage 2 left items without vectors');
    } else {
      const [cpu, wall] = [cpuMs(), performance.now()];
      for (let i = 0; i < all.length; i += 128) await writer.write(all.slice(i, i + 128));
      const oneCpu = cpuMs() - cpu;
      console.log(
        `one stage (embed + upsert): ${n} items, ${oneCpu.toFixed(0)} ms CPU (${Math.round(n / (oneCpu / 1000))} items per CPU s; wall ${Math.round(n / ((performance.now() - wall) / 1000))}/s)`,
      );
    }
    await index.close();
  }
  await model.close();
}

/** This thread's CPU time (the event loop's: writers, stage 1; not the indexer's worker thread). */
const loopCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

async function overload(dir: string, seconds: number, catchUpSeconds: number, twoStage: boolean): Promise<void> {
  const tag = twoStage ? 'two stages' : 'one stage';
  const store = new SqliteEventStore({ filename: join(dir, `overload-${twoStage}.db`) });
  const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 100 }));
  const indexFile = join(dir, `overload-${twoStage}.memory.db`);
  const config = { ...memoryConfigFromEnv(process.env, dir), sqliteFile: indexFile };
  const { index } = sqliteIndexFor(config, indexFile);
  const checkpoints = new InMemoryCheckpointStore();
  const indexer = new MemoryIndexer({
    store,
    checkpoints,
    index,
    policies: new InMemoryPolicyStore(),
    writer: new ThreadItemWriter(config),
    cpuShare: config.indexerCpuShare,
    twoStage,
  });
  const caller = { tenantId: 'bench', actor: 'bench' };
  const writers = 8;
  for (let s = 0; s < writers; s++) await sessions.startSession(caller, { sessionId: `s${s}` });
  await indexer.open();
  indexer.start();
  const begin = performance.now();
  const loopCpuAtBegin = loopCpuMs();
  let loading = true;
  let turns = 0;
  const samples: { at: number; lag: number; pendingVectors: number }[] = [];
  const load = Promise.all(
    Array.from({ length: writers }, async (_, s) => {
      while (performance.now() - begin < seconds * 1000) {
        await sessions.execute(caller, `s${s}`, { type: 'RecordMessage', role: turns % 2 ? 'agent' : 'user', content: sentence(turns++) });
      }
    }),
  ).finally(() => (loading = false));
  const sample = async () => {
    const s = await indexer.status();
    samples.push({ at: performance.now() - begin, lag: s.lag, pendingVectors: s.pendingVectors });
    return s;
  };
  while (loading) {
    await sample();
    await new Promise((r) => setTimeout(r, 1000));
  }
  await load;
  const ended = performance.now();
  const loopCpu = loopCpuMs() - loopCpuAtBegin;
  let keywordsAt: number | null = null;
  let vectorsAt: number | null = null;
  while (performance.now() - ended < catchUpSeconds * 1000) {
    const s = await sample();
    if (s.lag === 0) keywordsAt ??= performance.now() - ended;
    if (s.lag === 0 && s.pendingVectors === 0) {
      vectorsAt = performance.now() - ended;
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const during = samples.filter((s) => s.at <= seconds * 1000);
  const lastTen = during.filter((s) => s.at > (seconds - 10) * 1000);
  const max = (xs: number[]) => Math.max(0, ...xs);
  console.log(
    `overload, ${tag}: ${turns} turns in ${seconds} s (${Math.round(turns / seconds)}/s, ${writers} writers in this process); ` +
      `keyword lag max ${max(during.map((s) => s.lag))} events (last 10 s: ${max(lastTen.map((s) => s.lag))}), ` +
      `items not embedded max ${max(during.map((s) => s.pendingVectors))}; event-loop CPU ${(loopCpu / turns).toFixed(3)} ms per turn (writers, reading the log, stage 1); ` +
      `after the load: keywords caught up in ${keywordsAt === null ? `>${catchUpSeconds}` : (keywordsAt / 1000).toFixed(1)} s, ` +
      `vectors in ${vectorsAt === null ? `>${catchUpSeconds}` : (vectorsAt / 1000).toFixed(1)} s`,
  );
  // One sample per 10 s of the run (the first of each).
  const shown = samples.filter((s, i) => i === 0 || Math.floor(s.at / 10_000) > Math.floor(samples[i - 1]!.at / 10_000));
  console.log(`  samples (s: lag events / items not embedded): ${shown.map((s) => `${Math.round(s.at / 1000)}:${s.lag}/${s.pendingVectors}`).join(' ')}`);
  await indexer.stop();
  await index.close();
  await store.close();
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string, fallback: number) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args[at + 1]) : fallback;
  };
  const dir = mkdtempSync(join(tmpdir(), 'rewind-two-stage-'));
  try {
    if (!args.includes('--no-costs')) await stageCosts(dir, flag('--items', 3000));
    const seconds = flag('--overload-seconds', 60);
    const order = args.includes('--one-stage-first') ? [false, true] : [true, false];
    if (seconds > 0) for (const twoStage of order) await overload(dir, seconds, flag('--catch-up-seconds', 600), twoStage);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
