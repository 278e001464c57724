/**
 * Recall latency of the PostgreSQL memory index (issue 38: p99 ≤ 50 ms at 100 000 items), measured on a
 * fresh database: `npm run build && node dist/test/bench/postgres-memory-recall.bench.js [--items 100000]
 * [--queries 400] [--sessions 200]`. REWIND_TEST_DATABASE_URL names the server (default the local one).
 *
 * Items are one tenant's turns over `sessions` sessions: a sentence of common words plus rarer ones, and a
 * 384-dimensional unit vector (e5-small's size) drawn around one of 64 topics, so that the Hamming
 * prefilter faces near neighbours rather than noise. Each query is what recall asks the index for one
 * question (recall.ts: a vector search and a keyword search of `candidates` = 300 hits, at once), tenant-wide
 * and within a session; the wall time of the pair is what a question waits for the index. Not a timed test.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import type * as PostgresTesting from '@rewind/event-store/testing/postgres';
import type { MemoryItem } from '@rewind/memory';
import { PostgresVectorIndex } from '@rewind/memory/postgres';
import { builtTestHelper } from './built-test-helper';
import { summarize } from './stats';

const { createTestDatabase } = builtTestHelper<typeof PostgresTesting>('libs/event-store/dist/testing/postgres-test-database.js');

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '400' },
    sessions: { type: 'string', default: '200' },
    keep: { type: 'boolean', default: false },
  },
});
const ITEMS = Number(values.items);
const QUERIES = Number(values.queries);
const SESSIONS = Number(values.sessions);
const D = 384;
const TOPICS = 64;
/** recall.ts's DEFAULT_CANDIDATES: each search is asked for this many hits. */
const FETCH = 300;

const COMMON = ['hotel', 'flight', 'dinner', 'museum', 'train', 'budget', 'garden', 'market', 'bridge', 'harbour', 'castle', 'river'];
const RARE = Array.from({ length: 5_000 }, (_, i) => `w${i.toString(36)}x`);

/** A deterministic generator (mulberry32): the same items on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(38);
const gaussian = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
const topics = Array.from({ length: TOPICS }, () => Float32Array.from({ length: D }, gaussian));

function vectorNear(topic: number, spread = 0.6): Float32Array {
  const v = Float32Array.from(topics[topic]!, (x) => x + spread * gaussian() * 2);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function sentence(i: number): string {
  const w = (k: number) => COMMON[(i * k) % COMMON.length];
  return `Turn ${i}: we talked about the ${w(1)} and the ${w(7)} near the ${RARE[i % RARE.length]}, then the ${RARE[(i * 31) % RARE.length]} in the afternoon.`;
}

function item(i: number): MemoryItem {
  return {
    id: `e${i}:0`,
    tenantId: 'bench',
    sessionId: `s${i % SESSIONS}`,
    eventId: `e${i}`,
    version: Math.floor(i / SESSIONS) + 2,
    globalPosition: i + 1,
    role: i % 2 ? 'agent' : 'user',
    occurredAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    chunk: 0,
    text: sentence(i),
    ...(i > 0 ? { context: sentence(i - 1) } : {}),
  };
}

async function main(): Promise<void> {
  const db = await createTestDatabase('rewind_bench_pg_memory');
  const pool = new Pool({ connectionString: db.url, max: 4 });
  const index = new PostgresVectorIndex({ pool });
  try {
    await index.open({ id: 'bench-model', dimensions: D });
    const loadStarted = performance.now();
    for (let from = 0; from < ITEMS; from += 1_000) {
      const batch = Array.from({ length: Math.min(1_000, ITEMS - from) }, (_, k) => from + k).map((i) => ({ item: item(i), vector: vectorNear(i % TOPICS) }));
      await index.upsert(batch);
      if ((from / 1_000) % 10 === 0) process.stderr.write(`loaded ${from + batch.length} items\n`);
    }
    await pool.query('VACUUM ANALYZE rewind.memory_items, rewind.memory_codes');
    const loadSeconds = (performance.now() - loadStarted) / 1000;

    const questions = Array.from({ length: QUERIES }, (_, q) => ({
      vector: vectorNear(q % TOPICS, 0.8),
      text: `what about the ${COMMON[q % COMMON.length]} near the ${RARE[(q * 17) % RARE.length]}?`,
      session: `s${q % SESSIONS}`,
    }));
    const run = async (scope: (q: (typeof questions)[number]) => { tenantId: string; sessionId?: string }) => {
      const pair: number[] = [];
      const vector: number[] = [];
      const text: number[] = [];
      for (const [n, q] of questions.entries()) {
        const started = performance.now();
        const [v, t] = await Promise.all([
          index.searchVector(q.vector, scope(q), FETCH).then((hits) => (vector.push(performance.now() - started), hits)),
          index.searchText(q.text, scope(q), FETCH).then((hits) => (text.push(performance.now() - started), hits)),
        ]);
        // The first tenth warms the caches (document frequencies, plans), as a running process has them.
        if (n >= QUERIES / 10) pair.push(performance.now() - started);
        if (v.length === 0) throw new Error('a vector search found nothing: the bench measures an empty index');
        void t;
      }
      return { recall: summarize(pair), vector: summarize(vector), text: summarize(text) };
    };
    const tenant = await run(() => ({ tenantId: 'bench' }));
    const session = await run((q) => ({ tenantId: 'bench', sessionId: q.session }));
    const round = (s: ReturnType<typeof summarize>) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Math.round(v * 10) / 10]));
    const report = {
      items: ITEMS,
      dimensions: D,
      sessions: SESSIONS,
      queries: QUERIES,
      loadSeconds: Math.round(loadSeconds),
      tenantWide: { recall: round(tenant.recall), vector: round(tenant.vector), text: round(tenant.text) },
      oneSession: { recall: round(session.recall), vector: round(session.vector), text: round(session.text) },
      targetP99Ms: 50,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await index.close();
    await pool.end();
    if (!values.keep) await db.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
