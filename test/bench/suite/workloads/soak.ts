/**
 * The soak (issue 26; `npm run bench -- --soak`, not in the default run): ten minutes of
 * concurrent writers against the API with its default configuration (memory on), one store per
 * job. Short benchmarks do not see what sustained load does: throughput falling, the heap
 * growing, followers (the memory indexer) falling behind.
 *
 * The load client (its own process) runs `soakSessions` agents, each writing a turn (5 steps) per
 * request for `soakMinutes` minutes, and reports requests and latency per minute. Meanwhile this
 * process (the API's) samples its RSS and the memory index's two lags every 5 s: events not yet
 * searchable by keywords (stage 1) and items not yet embedded (stage 2). After the load, the time
 * until each has caught up (0) is measured.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LoadSpec } from '../load-client';
import { startRewindApi } from '../peers/rewind-http';
import type { Row, StoreName } from '../results';
import type { Sizes } from '../sizes';
import { memoryStatus } from './mem-http-load';
import { runLoadClient } from './w4-throughput';

interface Sample {
  atMs: number;
  rss: number;
  heapUsed: number;
  lag: number | null;
  /** Items searchable by keywords, not yet embedded. */
  pendingVectors: number | null;
  /** CPU µs of the API's event loop (this thread: requests, projections, followers; not the indexer's thread). */
  loopCpuUs: number;
  /** SQLite: bytes of the data directory's files (the log, read models, the memory index); PostgreSQL: null. */
  dataBytes: number | null;
}

/** The API's main thread's CPU time (Node ≥ 23.9), so the memory indexer's worker thread is not counted. */
const loopCpuUs = () => {
  const { user, system } = process.threadCpuUsage();
  return user + system;
};

const dirBytes = (dir: string) => readdirSync(dir).reduce((sum, file) => sum + (statSync(join(dir, file), { throwIfNoEntry: false })?.size ?? 0), 0);

const MINUTE = 60_000;

export async function measureSoak(store: StoreName, run: string, sizes: Sizes): Promise<Row[]> {
  const api = await startRewindApi(store, run, 'soak');
  try {
    // The model loads before the load starts: the soak measures indexing under load, not start-up.
    const loaded = performance.now() + 90_000;
    while (performance.now() < loaded && (await memoryStatus(api))?.checkpoint === undefined) await new Promise((r) => setTimeout(r, 100));
    const spec: LoadSpec = {
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      sessions: sizes.soakSessions,
      steps: 0,
      warmup: 2,
      prefix: 'soak',
      unit: 'turn',
      durationMs: sizes.soakMinutes * MINUTE,
      bucketMs: MINUTE,
    };
    console.error(`  SOAK ${store}: ${spec.sessions} writers, a turn per request, for ${sizes.soakMinutes} min`);
    const samples: Sample[] = [];
    let loading = true;
    const start = performance.now();
    const load = runLoadClient(spec).finally(() => (loading = false));
    const sampler = (async () => {
      while (loading) {
        const status = await memoryStatus(api).catch(() => null);
        const { rss, heapUsed } = process.memoryUsage();
        const dataBytes = store === 'sqlite' ? dirBytes(api.dataDir) : null;
        const sample = {
          atMs: performance.now() - start,
          rss,
          heapUsed,
          lag: status?.lag ?? null,
          pendingVectors: status?.pendingVectors ?? null,
          loopCpuUs: loopCpuUs(),
          dataBytes,
        };
        if (samples.length > 0 && Math.floor(sample.atMs / MINUTE) > Math.floor(samples[samples.length - 1]!.atMs / MINUTE)) {
          console.error(
            `  SOAK ${store}: minute ${Math.floor(sample.atMs / MINUTE)} done, RSS ${Math.round(rss / 2 ** 20)} MiB, memory index lag ${sample.lag ?? '–'} events (keywords), ${sample.pendingVectors ?? '–'} items not embedded`,
          );
        }
        samples.push(sample);
        // Every 5 s: the status route counts the events behind the index (a COUNT over them).
        await new Promise((r) => setTimeout(r, 5000));
      }
    })();
    const result = await load;
    await sampler;
    const loadEnded = performance.now();
    if (result.errors > 0) throw new Error(`soak ${store}: ${result.errors} failed requests, first: ${result.firstError}`);
    // Each stage's catch-up: keywords (lag 0), then vectors (no item awaiting one).
    let keywordsAt: number | null = null;
    let vectorsAt: number | null = null;
    let lagAtEnd: number | null = null;
    let pendingVectorsAtEnd: number | null = null;
    const giveUp = performance.now() + 10 * MINUTE;
    while (performance.now() < giveUp) {
      const status = await memoryStatus(api);
      lagAtEnd ??= status?.lag ?? null;
      pendingVectorsAtEnd ??= status?.pendingVectors ?? null;
      const at = status?.at ?? performance.now();
      if (!status || status.lag === 0) keywordsAt ??= at;
      if (!status || (status.lag === 0 && status.pendingVectors === 0)) {
        vectorsAt = at;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const catchUpMs = keywordsAt === null ? null : keywordsAt - loadEnded;
    const vectorCatchUpMs = vectorsAt === null ? null : vectorsAt - loadEnded;
    const seconds = (ms: number | null) => (ms === null ? 'not within 10 min' : `${(ms / 1000).toFixed(1)} s`);
    console.error(`  SOAK ${store}: load over; keyword search caught up in ${seconds(catchUpMs)}, vectors in ${seconds(vectorCatchUpMs)}`);

    // Whole minutes only: requests answered after the deadline make a short last bucket.
    const buckets = (result.buckets ?? []).slice(0, sizes.soakMinutes);
    // Minute 2 (index 1) is after warm-up; the last full minute is the soak's end.
    const minute = (m: number) => buckets[m - 1];
    const lastFull = buckets.length >= sizes.soakMinutes ? sizes.soakMinutes : buckets.length - 1;
    const secondMinute = minute(2);
    const lastMinute = minute(lastFull);
    const rssAt = (m: number) => {
      const inMinute = samples.filter((s) => s.atMs >= (m - 1) * MINUTE && s.atMs < m * MINUTE);
      return inMinute.length ? Math.max(...inMinute.map((s) => s.rss)) : null;
    };
    const lags = samples.map((s) => s.lag).filter((l): l is number => l !== null);
    const pendings = samples.map((s) => s.pendingVectors).filter((l): l is number => l !== null);
    // Event-loop CPU per request in each minute, from the samples nearest its start and end: what a
    // request costs the API as the data grows, whatever else the machine was doing.
    const nearest = (atMs: number) => samples.reduce((best, s) => (Math.abs(s.atMs - atMs) < Math.abs(best.atMs - atMs) ? s : best), samples[0]!);
    const cpuPerRequestMs = (i: number, requests: number) => {
      if (samples.length < 2 || requests === 0) return null;
      const [from, to] = [nearest(i * MINUTE), nearest((i + 1) * MINUTE)];
      return to.atMs > from.atMs ? (to.loopCpuUs - from.loopCpuUs) / 1000 / (requests * ((to.atMs - from.atMs) / MINUTE)) : null;
    };
    const perMinute = buckets.map((b, i) => ({
      minute: i + 1,
      loopCpuMsPerRequest: cpuPerRequestMs(i, b.requestsPerSecond * 60),
      dataBytes: nearest((i + 1) * MINUTE)?.dataBytes ?? null,
      requestsPerSecond: b.requestsPerSecond,
      p50: b.p50,
      p99: b.p99,
      rssMaxBytes: rssAt(i + 1),
      lagMax: Math.max(0, ...samples.filter((s) => s.atMs >= i * MINUTE && s.atMs < (i + 1) * MINUTE).map((s) => s.lag ?? 0)),
      pendingVectorsMax: Math.max(0, ...samples.filter((s) => s.atMs >= i * MINUTE && s.atMs < (i + 1) * MINUTE).map((s) => s.pendingVectors ?? 0)),
    }));
    const row: Row = {
      workload: 'SOAK',
      key: 'SOAK.http.turn',
      label: `soak: ${sizes.soakMinutes} min of ${spec.sessions} concurrent writers, a turn (5 events) per request, default configuration (memory on)`,
      system: 'rewind',
      store,
      path: 'http (a turn per request)',
      throughput: result.eventsPerSecond,
      latency: result.latency,
      notes: [api.description],
      extra: {
        minutes: perMinute,
        secondMinute: secondMinute ?? null,
        lastMinute: lastMinute ?? null,
        lastMinuteIndex: lastFull,
        throughputLastVsSecond: secondMinute && lastMinute ? lastMinute.requestsPerSecond / secondMinute.requestsPerSecond : null,
        rssSecondMinute: rssAt(2),
        rssLastMinute: rssAt(lastFull),
        rssGrowth: rssAt(2) && rssAt(lastFull) ? rssAt(lastFull)! / rssAt(2)! - 1 : null,
        indexLagMax: lags.length ? Math.max(...lags) : null,
        indexLagAtEnd: lagAtEnd,
        catchUpAfterLoadMs: catchUpMs,
        pendingVectorsMax: pendings.length ? Math.max(...pendings) : null,
        pendingVectorsAtEnd,
        vectorCatchUpAfterLoadMs: vectorCatchUpMs,
        requests: result.requests,
      },
    };
    console.error(`  SOAK ${store}: ${JSON.stringify(row.extra, null, 0).slice(0, 2000)}`);
    return [row];
  } finally {
    await api.close();
  }
}
