/**
 * MEM — long-term memory: recall quality on a generated set (recall@5, MRR, hits from abandoned
 * branches) for a plain vector baseline and for Rewind's hybrid, branch-aware recall with and
 * without query rewriting; indexing throughput with the real local model; search latency at
 * 10 000 and 100 000 items; index lag and append latency with the indexer on and off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ancestry } from '@rewind/domain';
import { SessionRepository, SessionService } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import {
  DeterministicRewriter,
  EngineSessionPaths,
  InMemoryPolicyStore,
  MemoryIndexer,
  MemoryRecall,
  normalize,
  type MemoryRecallOptions,
} from '@rewind/memory';
import { OnnxEmbeddingModel } from '@rewind/memory/onnx';
import { memoryConfigFromEnv, sqliteIndexFor, ThreadItemWriter, ThreadKeywordAdmitter } from '@rewind/memory/runtime';
import { SqliteVectorIndex } from '@rewind/memory/sqlite-vec';
import { InMemoryCheckpointStore } from '@rewind/event-store/subscriptions';
import { LatencyRecorder } from '../recorder';
import { latencyRow, type Row } from '../results';
import type { Sizes } from '../sizes';
import { englishDataset, type RecallDataset } from './mem-dataset';
import { chineseDataset, CHINESE_MODEL } from './mem-dataset-zh';

const base = { workload: 'MEM' as const, system: 'rewind' as const, store: 'sqlite' as const, path: 'library' };

export async function measureMemory(sizes: Sizes): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-bench-memory-'));
  const model = new OnnxEmbeddingModel();
  try {
    const info = await model.info();
    const rows: Row[] = [];
    rows.push(...(await recallQuality(dir, model, englishDataset(sizes.quick ? 4 : 20, sizes.quick ? 4 : 8))));
    for (const items of sizes.quick ? [10_000] : [10_000, 100_000]) rows.push(...(await searchLatency(dir, info.dimensions, items, sizes.quick ? 100 : 300)));
    rows.push(...(await lagAndAppend(dir, model, sizes.quick ? 4 : 20)));
    for (const row of rows) row.notes = [...(row.notes ?? []), `model ${info.id} (${info.dimensions} dims), 1-bit codes scanned in memory + re-rank, FTS5`];
    // Both sets in one tenant with the defaults (language routing): mem-mixed.ts.
    const { mixedTenantRecall } = await import('./mem-mixed.js');
    return [...rows, ...(await chineseRecall(dir, sizes)), ...(await mixedTenantRecall(dir, sizes))];
  } finally {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same recall measurement on the generated Chinese set, with the catalogued Chinese model (rows `MEM.zh.*`). */
export async function chineseRecall(dir: string, sizes: Sizes): Promise<Row[]> {
  const model = new OnnxEmbeddingModel({ model: CHINESE_MODEL });
  try {
    const info = await model.info();
    const rows = await recallQuality(dir, model, chineseDataset(sizes.quick ? 4 : 20, sizes.quick ? 4 : 8), 'zh');
    for (const row of rows)
      row.notes = [...(row.notes ?? []), `Chinese set, model ${info.id} (${info.dimensions} dims), 1-bit codes scanned in memory + re-rank, FTS5 (bigrams)`];
    return rows;
  } finally {
    await model.close();
  }
}

async function recallQuality(dir: string, model: OnnxEmbeddingModel, dataset: RecallDataset, language?: 'zh'): Promise<Row[]> {
  const { sessions: specs, questions } = dataset;
  // English rows keep their keys (MEM.recall.rewind, …); the Chinese ones are MEM.zh.recall.rewind, ….
  const keyOf = (key: string) => (language ? key.replace(/^MEM\./, `MEM.${language}.`) : key);
  const labelOf = (label: string) => (language ? `Chinese: ${label}` : label);
  const store = new SqliteEventStore({ filename: join(dir, `recall${language ? `-${language}` : ''}.db`) });
  const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 100 }));
  const index = new SqliteVectorIndex({ filename: join(dir, `recall${language ? `-${language}` : ''}.memory.db`) });
  const policies = new InMemoryPolicyStore();
  const indexer = new MemoryIndexer({ store, checkpoints: new InMemoryCheckpointStore(), index, model, policies, batchSize: 512 });
  const caller = { tenantId: 'bench', actor: 'bench' };
  const askedAt = await writeDataset(sessions, dataset);
  const started = performance.now();
  await indexer.catchUp();
  const seconds = (performance.now() - started) / 1000;
  const status = await indexer.status();
  const rows: Row[] = [
    {
      ...base,
      key: keyOf('MEM.index'),
      label: labelOf('indexing throughput: items embedded (real local model) and written to the index'),
      throughput: status.items / seconds,
      extra: { items: status.items, events: status.checkpoint, seconds },
    },
  ];

  const ancestries = new Map<string, Set<number>>();
  for (const spec of specs) {
    const state = await sessions.getState(caller, spec.sessionId);
    ancestries.set(spec.sessionId, new Set(ancestry(state.timeline, state.head)));
  }
  const paths = new EngineSessionPaths(sessions);
  const configs: { key: string; label: string; options: MemoryRecallOptions; rewrite: boolean; useAt: boolean; tenantWide?: boolean }[] = [
    {
      key: 'MEM.recall.vector',
      label: 'plain vector search (a memory store without the timeline)',
      options: { hybrid: false, branchAware: false },
      rewrite: false,
      useAt: false,
    },
    {
      key: 'MEM.recall.vector+rewrite',
      label: 'plain vector search, question rewritten',
      options: { hybrid: false, branchAware: false },
      rewrite: true,
      useAt: true,
    },
    { key: 'MEM.recall.hybrid+branch', label: 'hybrid + branch-aware, question as asked', options: {}, rewrite: false, useAt: true },
    { key: 'MEM.recall.rewind', label: 'hybrid + branch-aware + rewriting (Rewind)', options: {}, rewrite: true, useAt: true },
    // Every session's items compete (the entities are unique to their session, so the fact asked for is still one item).
    {
      key: 'MEM.recall.rewind.tenant',
      label: 'hybrid + branch-aware + rewriting (Rewind), tenant-wide',
      options: {},
      rewrite: true,
      useAt: true,
      tenantWide: true,
    },
  ];
  for (const config of configs) {
    const recall = new MemoryRecall({ index, model, paths, rewriter: new DeterministicRewriter(), policies }, config.options);
    let found = 0;
    let reciprocal = 0;
    let abandonedHits = 0;
    let abandonedQuestions = 0;
    const latency = new LatencyRecorder();
    for (const q of questions) {
      const at = askedAt.get(`${q.sessionId}|${q.entity}|${q.attribute}`)!;
      const result = await latency.time(() =>
        recall.recall({
          tenantId: 'bench',
          sessionId: q.sessionId,
          query: q.question,
          k: 5,
          rewrite: config.rewrite,
          ...(config.useAt ? { at } : {}),
          ...(config.tenantWide ? { scope: 'tenant' as const } : {}),
        }),
      );
      const rank = result.hits.findIndex((h) => h.text === q.expectedText);
      if (rank >= 0) {
        found++;
        reciprocal += 1 / (rank + 1);
      }
      const offPath = result.hits.filter((h) => !ancestries.get(h.sessionId)!.has(h.version)).length;
      abandonedHits += offPath;
      if (q.abandonedText && result.hits.some((h) => h.text === q.abandonedText)) abandonedQuestions++;
    }
    rows.push(
      latencyRow(
        {
          ...base,
          key: keyOf(config.key),
          label: labelOf(config.label),
          extra: {
            questions: questions.length,
            recallAt5: found / questions.length,
            mrr: reciprocal / questions.length,
            abandonedHits,
            questionsWithContradiction: questions.filter((q) => q.abandonedText).length,
            contradictedFactRecalled: abandonedQuestions,
          },
        },
        latency,
      ),
    );
  }
  await index.close();
  await store.close();
  return rows;
}

/**
 * Writes the data set's conversations into the bench tenant: facts asked for and answered (some
 * first contradicted on a branch the user undid), small talk, then the user coming back to each
 * place asked about. Tells at which version each question is asked (`session|entity|attribute`).
 */
export async function writeDataset(sessions: SessionService, dataset: RecallDataset): Promise<Map<string, number>> {
  const caller = { tenantId: 'bench', actor: 'bench' };
  const say = async (sessionId: string, role: 'user' | 'agent', content: string) =>
    (await sessions.execute(caller, sessionId, { type: 'RecordMessage', role, content })).version;
  const askedAt = new Map<string, number>();
  const { sessions: specs, questions } = dataset;
  for (const spec of specs) {
    await sessions.startSession(caller, { sessionId: spec.sessionId });
    let f = 0;
    for (const fact of spec.facts) {
      await say(spec.sessionId, 'user', dataset.ask(fact));
      if (fact.abandonedText) {
        await say(spec.sessionId, 'agent', fact.abandonedText);
        await sessions.execute(caller, spec.sessionId, { type: 'MoveHead', kind: 'undo', steps: 1 });
      }
      await say(spec.sessionId, 'agent', fact.text);
      if (++f % 4 === 0) await say(spec.sessionId, 'user', spec.filler[f % spec.filler.length]!);
    }
    // Later in the conversation the user comes back to a place, then asks a follow-up about it.
    for (const q of questions.filter((q) => q.sessionId === spec.sessionId)) {
      const version = await say(spec.sessionId, 'user', dataset.returnTo(q.entity));
      askedAt.set(`${q.sessionId}|${q.entity}|${q.attribute}`, version);
    }
  }
  return askedAt;
}

const WORDS =
  'hotel museum price ticket train flight garden river castle market dinner lunch breakfast opening hours street square bridge tower beach harbour'.split(' ');
/** A Zipf-like vocabulary of 5 000 words for the search-latency index (real text is not 20 words repeated). */
const VOCABULARY = Array.from({ length: 5000 }, (_, i) => `${WORDS[i % WORDS.length]}${i >= WORDS.length ? Math.floor(i / WORDS.length) : ''}`);

export async function searchLatency(dir: string, dimensions: number, items: number, queries: number): Promise<Row[]> {
  // Random unit vectors: a brute-force scan costs the same whatever the vectors mean.
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
  const vector = () => normalize(Float32Array.from({ length: dimensions }, rnd));
  const words = (n: number) =>
    Array.from({ length: n }, () => VOCABULARY[Math.min(VOCABULARY.length, Math.floor(VOCABULARY.length ** ((rnd() + 1) / 2))) - 1]).join(' ');
  const index = new SqliteVectorIndex({ filename: join(dir, `search-${items}.memory.db`) });
  await index.open({ id: 'bench-random', dimensions });
  // Every vector kept, for the exact answers the 1-bit search is compared with.
  const vectors = new Float32Array(items * dimensions);
  for (let start = 0; start < items; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(items, start + 1000); i++) {
      const v = vector();
      vectors.set(v, i * dimensions);
      batch.push({
        item: {
          id: `e${i}:0`,
          tenantId: 'bench',
          sessionId: `s${i % 100}`,
          eventId: `e${i}`,
          version: i,
          globalPosition: i,
          role: 'user' as const,
          occurredAt: '2026-01-01T00:00:00.000Z',
          chunk: 0,
          text: words(12),
        },
        vector: v,
      });
    }
    await index.upsert(batch);
  }
  const rows: Row[] = [];
  for (const scope of ['tenant', 'session'] as const) {
    const latency = new LatencyRecorder();
    for (let q = 0; q < queries + 20; q++) {
      const v = vector();
      const text = words(3);
      const where = scope === 'tenant' ? { tenantId: 'bench' } : { tenantId: 'bench', sessionId: `s${q % 100}` };
      const start = performance.now();
      // What one recall of 5 hits asks of the index first: 50 vector and 50 keyword candidates.
      await Promise.all([index.searchVector(v, where, 50), index.searchText(text, where, 50)]);
      if (q >= 20) latency.record(performance.now() - start);
    }
    rows.push(
      latencyRow(
        {
          ...base,
          key: `MEM.search.${items}.${scope}`,
          label: `hybrid search at ${items.toLocaleString('en')} items, ${scope === 'tenant' ? 'tenant-wide' : 'one session (1 % of the items)'}`,
          extra: { items },
        },
        latency,
      ),
    );
  }
  rows.push(...(await binaryAgainstExact(index, vectors, dimensions, items, rnd)));
  await index.close();
  return rows;
}

/**
 * What the 1-bit scan and its re-rank lose against an exact search, tenant-wide: queries made
 * like paraphrases of one item (cosine 0.5 to it; the local model gives a paraphrase ~0.74),
 * then vaguer ones (0.3: among 100 000 random vectors the nearest other item is ~0.23 away),
 * is that item the first hit, and among the first 5, as the exact search has it?
 */
async function binaryAgainstExact(index: SqliteVectorIndex, vectors: Float32Array, dimensions: number, items: number, rnd: () => number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const cosine of [0.5, 0.3]) {
    const queries = 100;
    let exactFirst = 0;
    let first = 0;
    let inFive = 0;
    for (let q = 0; q < queries; q++) {
      const source = Math.floor(((rnd() + 1) / 2) * items) % items;
      const noise = normalize(Float32Array.from({ length: dimensions }, rnd));
      // cos(query, source) = cosine when the noise is orthogonal to the source (nearly so in 384 dimensions).
      const scale = Math.sqrt(1 / (cosine * cosine) - 1);
      const query = normalize(Float32Array.from({ length: dimensions }, (_, d) => vectors[source * dimensions + d]! + scale * noise[d]!));
      let best = -1;
      let bestScore = -Infinity;
      for (let i = 0; i < items; i++) {
        let dot = 0;
        for (let d = 0, o = i * dimensions; d < dimensions; d++, o++) dot += vectors[o]! * query[d]!;
        if (dot > bestScore) [best, bestScore] = [i, dot];
      }
      const hits = (await index.searchVector(query, { tenantId: 'bench' }, 50)).slice(0, 5).map((h) => h.item.id);
      if (best === source) exactFirst++;
      if (hits[0] === `e${source}:0`) first++;
      if (hits.includes(`e${source}:0`)) inFive++;
    }
    rows.push({
      ...base,
      key: `MEM.search.${items}.tenant.quality.${cosine}`,
      label: `vector search at ${items.toLocaleString('en')} items, tenant-wide, 1-bit codes + re-rank: a paraphrase (cosine ${cosine}) finds its item`,
      extra: { items, queries, exactFirst: exactFirst / queries, first: first / queries, inFive: inFive / queries },
    });
  }
  return rows;
}

/**
 * 50 turns/s for `seconds` s, indexer off, then on as the API runs it (embedding and index writes
 * in a worker thread, at most half a core), then on as the library runs it (in the caller's
 * thread): append latency each way, and how long each event waits to be indexed.
 */
export async function lagAndAppend(dir: string, model: OnnxEmbeddingModel, seconds: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const setting of ['off', 'thread', 'process'] as const) {
    const indexing = setting !== 'off';
    const store = new SqliteEventStore({ filename: join(dir, `lag-${setting}.db`) });
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 100 }));
    const indexFile = join(dir, `lag-${setting}.memory.db`);
    const config = { ...memoryConfigFromEnv(process.env, dir), sqliteFile: indexFile };
    // The thread writes the index as the configuration lays it out (with language routing, a model's tables per language): this thread admits into the same tables.
    const index = setting === 'thread' ? sqliteIndexFor(config, indexFile).index : new SqliteVectorIndex({ filename: indexFile });
    const checkpoints = new InMemoryCheckpointStore();
    const indexer = new MemoryIndexer({
      store,
      checkpoints,
      index,
      policies: new InMemoryPolicyStore(),
      pollIntervalMs: 20,
      // As the API places it: the keyword stage's index writes in a thread of their own too.
      ...(setting === 'thread'
        ? { writer: new ThreadItemWriter(config), admitter: new ThreadKeywordAdmitter(config), cpuShare: config.indexerCpuShare }
        : { model }),
    });
    const caller = { tenantId: 'bench', actor: 'bench' };
    for (let s = 0; s < 10; s++) await sessions.startSession(caller, { sessionId: `s${s}` });
    if (indexing) {
      await indexer.open();
      indexer.start();
    }
    const append = new LatencyRecorder();
    const lag = new LatencyRecorder();
    const vectorLag = new LatencyRecorder();
    const pending: { position: number; at: number }[] = [];
    const unembedded: { position: number; at: number }[] = [];
    const turns = seconds * 50;
    const begin = performance.now();
    let watching = true;
    // The indexer keeps its position per embedding model (ModelCheckpoints).
    const checkpointName = indexing ? await indexer.checkpointName() : 'memory-indexer';
    const watcher = (async () => {
      while (watching || pending.length > 0 || unembedded.length > 0) {
        const checkpoint = await checkpoints.load(checkpointName);
        // Two stages: every item before the oldest one awaiting a vector has its vector.
        const oldest = indexing ? (await index.pendingVectors?.())?.oldestPosition : null;
        const embeddedThrough = oldest == null ? checkpoint : Math.min(checkpoint, oldest - 1);
        const now = performance.now();
        while (pending.length > 0 && pending[0]!.position <= checkpoint) lag.record(now - pending.shift()!.at);
        while (unembedded.length > 0 && unembedded[0]!.position <= embeddedThrough) vectorLag.record(now - unembedded.shift()!.at);
        if (!indexing) pending.length = unembedded.length = 0;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    for (let i = 0; i < turns; i++) {
      const due = begin + i * 20;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await append.time(() =>
        sessions.execute(caller, `s${i % 10}`, {
          type: 'RecordMessage',
          role: i % 2 ? 'agent' : 'user',
          content: `Turn ${i}: we talked about ${WORDS[i % WORDS.length]} and ${WORDS[(i * 7) % WORDS.length]} in the afternoon.`,
        }),
      );
      if (indexing) {
        const committed = { position: await store.lastPosition(), at: performance.now() };
        pending.push(committed);
        unembedded.push(committed);
      }
    }
    watching = false;
    await watcher;
    await indexer.stop();
    // MEM.append.on and MEM.lag are the API's setting (the worker thread); `.process` rows the library's.
    const suffix = setting === 'process' ? '.process' : '';
    const where = setting === 'thread' ? 'in a worker thread, as the API runs it' : "in the caller's thread, as the library runs it";
    rows.push(
      latencyRow(
        {
          ...base,
          key: `MEM.append.${indexing ? 'on' : 'off'}${suffix}`,
          label: `append one message at 50 turns/s, indexer ${indexing ? `on (${where})` : 'off'}`,
          extra: { turns },
        },
        append,
      ),
    );
    if (indexing)
      rows.push(
        latencyRow(
          { ...base, key: `MEM.lag${suffix}`, label: `index lag at 50 turns/s: commit → item searchable (by keywords; indexer ${where})`, extra: { turns } },
          lag,
        ),
        latencyRow(
          {
            ...base,
            key: `MEM.lag.vectors${suffix}`,
            label: `index lag at 50 turns/s: commit → item embedded (searchable by similarity; indexer ${where})`,
            extra: { turns },
          },
          vectorLag,
        ),
      );
    await index.close();
    await store.close();
  }
  return rows;
}
