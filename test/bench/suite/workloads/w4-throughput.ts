/**
 * W4 throughput: events/s appended with 100 concurrent sessions, one step (= one event) per
 * request, each session's requests one after another; a bounded number of requests.
 *  - http: the server runs in this (the job's) process; the load generator is a second process
 *    (load-client.ts, node:http keep-alive), so the two share the machine's cores, as PostgreSQL does.
 *  - library: the same 100 concurrent sessions driven in-process through the library.
 */
import { performance } from 'node:perf_hooks';
import type { SystemAdapter } from '../adapter';
import { runClientProcess } from '../client-process';
import { STEPS_PER_TURN } from '../conversation';
import { busySince, cpuTimes } from '../cpu';
import type { LoadResult, LoadSpec } from '../load-client';
import { profiled, profilingEnabled } from '../profiler';
import { LatencyRecorder } from '../recorder';
import type { Row, RowStore, StoreName, SystemName } from '../results';
import type { Sizes } from '../sizes';

export function runLoadClient(spec: LoadSpec, onMark?: (name: string) => void, onSpawn?: (pid: number) => void): Promise<LoadResult> {
  return runClientProcess<LoadResult>('load-client.js', spec, onMark, onSpawn);
}

export async function measureHttpThroughput(
  target: { baseUrl: string; apiKey: string },
  who: { system: SystemName; store: StoreName; notes: string[] },
  sizes: Sizes,
  prefix: string,
  unit: 'step' | 'turn' = 'step',
): Promise<Row> {
  const spec: LoadSpec = {
    unit,
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    sessions: sizes.concurrentSessions,
    steps: sizes.throughputSteps,
    warmup: sizes.throughputWarmup,
    prefix,
    client: process.env.REWIND_BENCH_W4_CLIENT === 'fetch' ? 'fetch' : 'http',
  };
  const cpu = cpuTimes();
  const serverCpu = process.cpuUsage();
  // The server's CPU time over the client's measured phase only (no set-up, no warm-up): this
  // process runs the server and nothing else meanwhile, so it is the API's CPU for those requests:
  // the whole process's (worker threads too: the memory indexer embeds there) and the event loop
  // thread's alone (the request path).
  let from: { process: NodeJS.CpuUsage; thread: NodeJS.CpuUsage } | undefined;
  let measured: { process: NodeJS.CpuUsage; thread: NodeJS.CpuUsage } | undefined;
  const onMark = (name: string) => {
    if (name === 'measure-start') from = { process: process.cpuUsage(), thread: process.threadCpuUsage() };
    else if (name === 'measure-end' && from) measured = { process: process.cpuUsage(from.process), thread: process.threadCpuUsage(from.thread) };
  };
  const result = await profiled(`W4-http-${unit}-${who.system}-${who.store}`, () => runLoadClient(spec, onMark));
  const serverUsed = process.cpuUsage(serverCpu);
  const busy = busySince(cpu);
  const perRequest = (used: NodeJS.CpuUsage | undefined) => (used && result.requests > 0 ? (used.user + used.system) / result.requests : null);
  const apiCpuUsPerRequest = perRequest(measured?.process);
  const apiLoopCpuUsPerRequest = perRequest(measured?.thread);
  if (result.errors > 0) throw new Error(`W4 ${who.system}/${who.store}: ${result.errors} failed requests, first: ${result.firstError}`);
  const row: Row = {
    workload: 'W4',
    key: unit === 'turn' ? 'W4.http.turn' : 'W4.http',
    label:
      unit === 'turn'
        ? `events/s through HTTP, ${spec.sessions} concurrent sessions (a turn, ${STEPS_PER_TURN} events, per request: POST /v1/sessions/:id/steps)`
        : `events/s through HTTP, ${spec.sessions} concurrent sessions (1 event per request)`,
    system: who.system,
    store: who.store,
    path: unit === 'turn' ? 'http (a turn per request)' : 'http',
    throughput: result.eventsPerSecond,
    latency: result.latency,
    histogram: result.histogram,
    notes: who.notes,
    extra: {
      requests: result.requests,
      requestsPerSecond: result.requestsPerSecond,
      elapsedMs: result.elapsedMs,
      client: result.client,
      clientCpuMs: result.clientCpuMs,
      serverProcessCpuMs: (serverUsed.user + serverUsed.system) / 1000,
      apiCpuUsPerRequest,
      apiLoopCpuUsPerRequest,
      profiled: profilingEnabled(),
      machineCpuBusy: busy,
      warmupStepsPerSession: spec.warmup,
    },
  };
  console.error(
    `  W4 ${who.system}/${who.store} http (${unit} per request): ${Math.round(row.throughput!)} events/s, p50 ${result.latency.p50.toFixed(2)} ms p99 ${result.latency.p99.toFixed(2)} ms, machine CPU ${busy === null ? '?' : Math.round(busy * 100)}%, API CPU ${Math.round(apiCpuUsPerRequest ?? NaN)} µs/request (event loop ${Math.round(apiLoopCpuUsPerRequest ?? NaN)})`,
  );
  return row;
}

export async function measureLibraryThroughput(adapter: SystemAdapter, sizes: Sizes): Promise<Row> {
  const n = sizes.concurrentSessions;
  const total = sizes.throughputWarmup + sizes.throughputSteps;
  const turns = Math.ceil(total / STEPS_PER_TURN) + 1;
  const ids = Array.from({ length: n }, (_, i) => `w4lib-${i}`);
  for (const id of ids) await adapter.prepare?.(id, turns);
  await Promise.all(ids.map((id) => adapter.startSession(id)));
  const step = (id: string, i: number) => adapter.appendStep(id, Math.floor(i / STEPS_PER_TURN), i % STEPS_PER_TURN);
  await Promise.all(
    ids.map(async (id) => {
      for (let i = 0; i < sizes.throughputWarmup; i++) await step(id, i);
    }),
  );
  const recorder = new LatencyRecorder();
  const cpu = cpuTimes();
  const start = performance.now();
  await profiled(`W4-library-${adapter.system}-${adapter.store}`, () =>
    Promise.all(
      ids.map(async (id) => {
        for (let i = sizes.throughputWarmup; i < total; i++) {
          const begin = performance.now();
          await step(id, i);
          recorder.record(performance.now() - begin);
        }
      }),
    ),
  );
  const elapsedMs = performance.now() - start;
  const busy = busySince(cpu);
  const row: Row = {
    workload: 'W4',
    key: 'W4.library',
    label: `events/s through the library, ${n} concurrent sessions (1 event per append)`,
    system: adapter.system,
    store: adapter.store,
    path: 'library',
    throughput: recorder.size / (elapsedMs / 1000),
    latency: recorder.summary(),
    histogram: recorder.histogram(),
    notes: [adapter.description],
    extra: { requests: recorder.size, elapsedMs, machineCpuBusy: busy },
  };
  console.error(`  W4 ${adapter.system}/${adapter.store} library: ${Math.round(row.throughput!)} events/s, p99 ${row.latency!.p99.toFixed(2)} ms`);
  return row;
}

/**
 * Issue 26's floor for W4 over HTTP: the null Fastify server (http-ceiling.ts) under the very
 * load W4 sends Rewind (same client process, sessions, requests: one step, then a turn per
 * request), measured in the HTTP job just before Rewind, so that the ratio is of one run.
 */
export async function measureNullThroughput(pairedWith: StoreName, sizes: Sizes): Promise<Row[]> {
  const { startNullServer } = await import('./http-ceiling.js');
  const server = await startNullServer();
  try {
    return await measureReferenceThroughput(
      server.baseUrl,
      { system: 'http', store: 'none', keyPrefix: 'W4.null', label: 'null server', pairedWith },
      ['null Fastify server: route, parse the JSON body, answer a small 201; the same load client and requests as the Rewind rows below'],
      sizes,
    );
  } finally {
    await server.close();
  }
}

/**
 * Issue 40's floor for W4 over HTTP: the durable floor (durable-floor.ts: the null server plus one
 * INSERT of the body on the same store) under the same load, measured in the HTTP job just before Rewind.
 */
export async function measureFloorThroughput(store: StoreName, run: string, sizes: Sizes): Promise<Row[]> {
  const { startDurableFloor } = await import('./durable-floor.js');
  const server = await startDurableFloor(store, run);
  try {
    return await measureReferenceThroughput(
      server.baseUrl,
      { system: 'floor', store, keyPrefix: 'W4.floor', label: 'durable floor', pairedWith: store },
      [`${server.description}; the same load client and requests as the Rewind rows below`],
      sizes,
    );
  } finally {
    await server.close();
  }
}

/** A reference server's W4 rows, a step then a turn per request (keys `<keyPrefix>` and `<keyPrefix>.turn`). */
async function measureReferenceThroughput(
  baseUrl: string,
  who: { system: SystemName; store: RowStore; keyPrefix: string; label: string; pairedWith: StoreName },
  notes: string[],
  sizes: Sizes,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const unit of ['step', 'turn'] as const) {
    const row = await measureHttpThroughput(
      { baseUrl, apiKey: 'reference-server' },
      { system: who.system, store: who.pairedWith, notes },
      sizes,
      `${who.keyPrefix.split('.')[1]}${unit}`,
      unit,
    );
    rows.push({
      ...row,
      key: unit === 'turn' ? `${who.keyPrefix}.turn` : who.keyPrefix,
      label: `${who.label}, ${row.label}`,
      store: who.store,
      extra: { ...row.extra, pairedWith: who.pairedWith },
    });
  }
  return rows;
}
