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
import { cpuTimes } from '../cpu';
import { profiled, profilingEnabled } from '../profiler';
import type { LoadSpec } from '../load-client';
import { startRewindApi } from '../peers/rewind-http';
import type { Row, StoreName } from '../results';
import type { Sizes } from '../sizes';
import { GcPauses, PostgresCpu, PostgresStatements, processCpuUs, statementsBetween, type StatementCounters } from '../soak-probes';
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
  /** CPU µs of the API's process (all its threads: the memory indexer's worker, libuv's pool, V8's GC helpers). */
  processCpuUs: number;
  /** CPU µs of the PostgreSQL server's processes for the bench's database (its connections and the shared background ones); null on SQLite. */
  postgresCpuUs: number | null;
  /** Of postgresCpuUs, the server's background processes (WAL writer, checkpointer, …; they serve other databases too). */
  postgresBackgroundCpuUs: number | null;
  /** CPU µs of every `postgres` process on the machine (other databases' too); null on SQLite. */
  postgresAllCpuUs: number | null;
  /** pg_stat_statements' counters for the bench's database, by queryid; null on SQLite or when the server does not preload it. */
  statements: Map<string, StatementCounters> | null;
  /** CPU µs of the load client's process. */
  clientCpuUs: number | null;
  /** The machine's busy and total CPU ticks so far (/proc/stat). */
  machine: { busy: number; total: number } | null;
  /** GC pauses of the API's event loop so far (ms): all, and full (mark-compact) collections. */
  gcMs: number;
  gcMajorMs: number;
  /** Heap used just after the latest full GC: the live heap (the state cache's share of it is what its budget bounds). */
  liveHeapAfterMajorGc: number | null;
  heapTotal: number;
  /** Events' worth of session state in the API's cache (REWIND_STATE_CACHE_EVENTS bounds it), and its sessions. */
  stateCacheEvents: number;
  stateCacheSessions: number;
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

/** Seconds profiled in each window: long enough for ~100 000 samples at the profiler's 200 µs. */
const PROFILE_WINDOW_MS = 20_000;

/** Profiles the middle 20 s of each given minute of the load (not the first: each profile's own start costs a little). */
async function profileWindows(store: StoreName, minutes: number[], start: number, loading: () => boolean): Promise<void> {
  for (const m of [...new Set(minutes)].sort((a, b) => a - b)) {
    const at = start + (m - 1) * MINUTE + (MINUTE - PROFILE_WINDOW_MS) / 2;
    while (loading() && performance.now() < at) await new Promise((r) => setTimeout(r, Math.min(1000, at - performance.now())));
    if (!loading()) return;
    await profiled(`SOAK-${store}-minute-${String(m).padStart(2, '0')}`, () => new Promise((r) => setTimeout(r, PROFILE_WINDOW_MS)));
  }
}

export async function measureSoak(store: StoreName, run: string, sizes: Sizes): Promise<Row[]> {
  // The default configuration, but for the state cache's settings when the bench is told them (to see whether RSS
  // follows the budget; REWIND_STATE_VIEWS_FROM_EVENTS=0 for the whole states of before issue 40's views).
  const cacheBudget = process.env.REWIND_STATE_CACHE_EVENTS;
  const viewsFrom = process.env.REWIND_STATE_VIEWS_FROM_EVENTS;
  const api = await startRewindApi(store, run, 'soak', {
    ...(cacheBudget ? { REWIND_STATE_CACHE_EVENTS: cacheBudget } : {}),
    ...(viewsFrom ? { REWIND_STATE_VIEWS_FROM_EVENTS: viewsFrom } : {}),
  });
  const postgres = api.databaseUrl ? new PostgresCpu(api.databaseUrl) : null;
  const statements = api.databaseUrl ? new PostgresStatements(api.databaseUrl) : null;
  const gc = new GcPauses();
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
    let clientPid: number | null = null;
    gc.start();
    const start = performance.now();
    const load = runLoadClient(spec, undefined, (pid) => (clientPid = pid)).finally(() => (loading = false));
    const sampler = (async () => {
      while (loading) {
        const status = await memoryStatus(api).catch(() => null);
        const pg = await postgres?.read();
        const statementCounters = (await statements?.read()) ?? null;
        const { rss, heapUsed, heapTotal } = process.memoryUsage();
        const dataBytes = store === 'sqlite' ? dirBytes(api.dataDir) : null;
        const { user, system } = process.cpuUsage();
        const cache = api.stateCache();
        const sample: Sample = {
          atMs: performance.now() - start,
          rss,
          heapUsed,
          heapTotal,
          lag: status?.lag ?? null,
          pendingVectors: status?.pendingVectors ?? null,
          loopCpuUs: loopCpuUs(),
          processCpuUs: user + system,
          postgresCpuUs: pg?.ours ?? null,
          postgresBackgroundCpuUs: pg?.background ?? null,
          postgresAllCpuUs: pg?.all ?? null,
          statements: statementCounters,
          // Once the client has exited (the last sample may come after), its last reading stands.
          clientCpuUs: (clientPid === null ? null : processCpuUs(clientPid)) ?? samples[samples.length - 1]?.clientCpuUs ?? null,
          machine: cpuTimes(),
          gcMs: gc.totalMs,
          gcMajorMs: gc.majorMs,
          liveHeapAfterMajorGc: gc.liveAfterMajor,
          stateCacheEvents: cache.events,
          stateCacheSessions: cache.sessions,
          dataBytes,
        };
        if (samples.length > 0 && Math.floor(sample.atMs / MINUTE) > Math.floor(samples[samples.length - 1]!.atMs / MINUTE)) {
          console.error(
            `  SOAK ${store}: minute ${Math.floor(sample.atMs / MINUTE)} done, RSS ${Math.round(rss / 2 ** 20)} MiB (heap used ${Math.round(heapUsed / 2 ** 20)}, state cache ${cache.events} events), GC ${Math.round(gc.totalMs)} ms so far, memory index lag ${sample.lag ?? '–'} events (keywords), ${sample.pendingVectors ?? '–'} items not embedded`,
          );
        }
        samples.push(sample);
        // Every 5 s: the status route counts the events behind the index (a COUNT over them).
        await new Promise((r) => setTimeout(r, 5000));
      }
    })();
    // With --profile: the API's CPU profile in a window of minute 3 and one of the last but one, so what a request
    // costs more late in the soak than early can be read by function (e.g. SOAK-sqlite-minute-03.cpuprofile); the
    // minutes the targets compare (2 and the last) stay unprofiled, so one run gives both.
    const profiles = profilingEnabled()
      ? profileWindows(store, [Math.min(3, sizes.soakMinutes), Math.max(1, sizes.soakMinutes - 1)], start, () => loading)
      : Promise.resolve();
    const result = await load;
    await sampler;
    await profiles;
    gc.stop();
    const loadEnded = performance.now();
    if (result.errors > 0) throw new Error(`soak ${store}: ${result.errors} failed requests, first: ${result.firstError}`);
    // Each stage's catch-up: keywords (lag 0), then vectors (no item awaiting one).
    let keywordsAt: number | null = null;
    let vectorsAt: number | null = null;
    let lagAtEnd: number | null = null;
    let pendingVectorsAtEnd: number | null = null;
    // REWIND_BENCH_SOAK_CATCHUP_MINUTES: how long to wait for the index (10 min; less for quick A/B runs of the minutes alone).
    const catchUpMinutes = Number(process.env.REWIND_BENCH_SOAK_CATCHUP_MINUTES ?? 10);
    const giveUp = performance.now() + catchUpMinutes * MINUTE;
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
    const seconds = (ms: number | null) => (ms === null ? `not within ${catchUpMinutes} min` : `${(ms / 1000).toFixed(1)} s`);
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
    /** A counter's growth over minute i+1 (between the samples nearest its ends), scaled to the whole minute. */
    const growth = (i: number, counter: (s: Sample) => number | null) => {
      const [from, to] = [nearest(i * MINUTE), nearest((i + 1) * MINUTE)];
      const [a, b] = [counter(from), counter(to)];
      return samples.length >= 2 && to.atMs > from.atMs && a !== null && b !== null ? (b - a) / ((to.atMs - from.atMs) / MINUTE) : null;
    };
    const perRequestMs = (i: number, requests: number, cpuUs: (s: Sample) => number | null) => {
      const used = growth(i, cpuUs);
      return used === null || requests === 0 ? null : used / 1000 / requests;
    };
    const shareOfMinute = (ms: number | null) => (ms === null ? null : ms / MINUTE);
    const inMinute = (i: number) => samples.filter((s) => s.atMs >= i * MINUTE && s.atMs < (i + 1) * MINUTE);
    const maxIn = (i: number, value: (s: Sample) => number) => (inMinute(i).length ? Math.max(...inMinute(i).map(value)) : null);
    const perMinute = buckets.map((b, i) => ({
      minute: i + 1,
      loopCpuMsPerRequest: perRequestMs(i, b.requestsPerSecond * 60, (s) => s.loopCpuUs),
      // The API's threads other than the event loop: the memory indexer's worker (embeddings), libuv's pool, V8's GC helpers.
      otherThreadsCpuMsPerRequest: perRequestMs(i, b.requestsPerSecond * 60, (s) => s.processCpuUs - s.loopCpuUs),
      postgresCpuMsPerRequest: perRequestMs(i, b.requestsPerSecond * 60, (s) => s.postgresCpuUs),
      postgresBackgroundCpuMsPerRequest: perRequestMs(i, b.requestsPerSecond * 60, (s) => s.postgresBackgroundCpuUs),
      postgresAllCpuMsPerRequest: perRequestMs(i, b.requestsPerSecond * 60, (s) => s.postgresAllCpuUs),
      // The statements that cost the server most in the minute, per request and per call (blocks: work whatever the load).
      statements: (() => {
        const [from, to] = [nearest(i * MINUTE), nearest((i + 1) * MINUTE)];
        if (!from.statements || !to.statements || to.atMs <= from.atMs) return null;
        return statementsBetween(from.statements, to.statements, (b.requestsPerSecond * 60 * (to.atMs - from.atMs)) / MINUTE, 8);
      })(),
      clientCpuMsPerRequest: perRequestMs(i, b.requestsPerSecond * 60, (s) => s.clientCpuUs),
      // Share of the machine's CPU time (all cores) that was busy, whoever's.
      machineBusy: (() => {
        const [busy, total] = [growth(i, (s) => s.machine?.busy ?? null), growth(i, (s) => s.machine?.total ?? null)];
        return busy !== null && total ? busy / total : null;
      })(),
      // GC pauses of the event loop, as a share of the minute's wall-clock time, and of them full collections.
      gcShare: shareOfMinute(growth(i, (s) => s.gcMs)),
      gcMajorShare: shareOfMinute(growth(i, (s) => s.gcMajorMs)),
      gcMsPerRequest: perRequestMs(i, b.requestsPerSecond * 60, (s) => s.gcMs * 1000),
      heapUsedMaxBytes: maxIn(i, (s) => s.heapUsed),
      heapTotalMaxBytes: maxIn(i, (s) => s.heapTotal),
      liveHeapAfterMajorGcBytes: nearest((i + 1) * MINUTE)?.liveHeapAfterMajorGc ?? null,
      stateCacheEvents: nearest((i + 1) * MINUTE)?.stateCacheEvents ?? null,
      stateCacheSessions: nearest((i + 1) * MINUTE)?.stateCacheSessions ?? null,
      dataBytes: nearest((i + 1) * MINUTE)?.dataBytes ?? null,
      requestsPerSecond: b.requestsPerSecond,
      p50: b.p50,
      p99: b.p99,
      rssMaxBytes: rssAt(i + 1),
      lagMax: Math.max(0, ...samples.filter((s) => s.atMs >= i * MINUTE && s.atMs < (i + 1) * MINUTE).map((s) => s.lag ?? 0)),
      pendingVectorsMax: Math.max(0, ...samples.filter((s) => s.atMs >= i * MINUTE && s.atMs < (i + 1) * MINUTE).map((s) => s.pendingVectors ?? 0)),
    }));
    // From minute 2 (after the warm-up) to the last full one, per request: the figures an A/B of a setting compares.
    const steady = (() => {
      const [from, to] = [nearest(MINUTE), nearest(lastFull * MINUTE)];
      const counted = buckets.slice(1, lastFull).reduce((sum, b) => sum + b.requestsPerSecond * 60, 0);
      // The client's minutes, scaled to the span between the two samples.
      const requests = lastFull > 1 ? (counted * (to.atMs - from.atMs)) / ((lastFull - 1) * MINUTE) : 0;
      const per = (counter: (s: Sample) => number | null) => {
        const [a, b] = [counter(from), counter(to)];
        return a === null || b === null || requests === 0 ? null : (b - a) / 1000 / requests;
      };
      return {
        requests: Math.round(requests),
        loopCpuMsPerRequest: per((s) => s.loopCpuUs),
        otherThreadsCpuMsPerRequest: per((s) => s.processCpuUs - s.loopCpuUs),
        postgresCpuMsPerRequest: per((s) => s.postgresCpuUs),
        clientCpuMsPerRequest: per((s) => s.clientCpuUs),
        gcMsPerRequest: per((s) => s.gcMs * 1000),
        gcMajorMsPerRequest: per((s) => s.gcMajorMs * 1000),
      };
    })();
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
        catchUpMinutes,
        requests: result.requests,
        steady,
        // The API's Node flags (the bench gives them as NODE_OPTIONS: see main.ts).
        nodeFlags: [process.env.NODE_OPTIONS, ...process.execArgv].filter(Boolean).join(' '),
        stateCacheBudget: Number(cacheBudget ?? 2_000_000),
        stateViewsFromEvents: viewsFrom === undefined ? null : Number(viewsFrom),
      },
    };
    console.error(`  SOAK ${store}: ${JSON.stringify(row.extra, null, 0).slice(0, 2000)}`);
    return [row];
  } finally {
    gc.stop();
    await postgres?.close();
    await statements?.close();
    await api.close();
  }
}
