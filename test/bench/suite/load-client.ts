/**
 * W4's load generator, run as its own process by the W4 job (so that its CPU is not the server's
 * event loop): `sessions` virtual agents, each writing its own session one step at a time over a
 * keep-alive connection, for `warmup` unmeasured then `steps` measured steps. Bounded: it stops by
 * itself. Prints `MARK measure-start` and `MARK measure-end` around the measured phase, then one
 * line `RESULT <json>`.
 *
 * Usage: node dist/test/bench/suite/load-client.js '<json LoadSpec>'
 */
import { performance } from 'node:perf_hooks';
import { clientMain, mark } from './client-process';
import { STEPS_PER_TURN, stepRequest, turnRequest } from './conversation';
import { fetchSender, httpSender } from './http-senders';
import { LatencyRecorder, type Histogram, type LatencySummary } from './recorder';

export interface LoadSpec {
  baseUrl: string;
  apiKey: string;
  sessions: number;
  steps: number;
  warmup: number;
  /** Session ids are `<prefix>-<n>`. */
  prefix: string;
  /** node:http with a keep-alive Agent (default), or fetch (undici, keep-alive). */
  client?: 'http' | 'fetch';
  /** 'step' (default): one step (one event) per request; 'turn': a whole turn (5 events) per request. */
  unit?: 'step' | 'turn';
  /** The soak: when set, every session writes until this many ms have passed (after its warm-up) instead of `steps` steps. */
  durationMs?: number;
  /** With `durationMs`: requests and latency are also reported per bucket of this many ms (a minute in the soak). */
  bucketMs?: number;
}

/** One bucket of a timed run (the soak's minutes): requests completed in it and their latency. */
export interface LoadBucket {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  firstError: string | null;
  elapsedMs: number;
  requestsPerSecond: number;
  /** Events written per second (requests × events per request). */
  eventsPerSecond: number;
  latency: LatencySummary;
  histogram: Histogram;
  clientCpuMs: number;
  client: string;
  buckets?: LoadBucket[];
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const send = spec.client === 'fetch' ? fetchSender(spec) : httpSender(spec, spec.sessions + 10);
  const ids = Array.from({ length: spec.sessions }, (_, i) => `${spec.prefix}-${i}`);
  let errors = 0;
  let firstError: string | null = null;
  const fail = (what: string) => {
    errors++;
    firstError ??= what;
  };
  // Set-up: create the sessions (not measured).
  await Promise.all(
    ids.map(async (sessionId) => {
      const res = await send('POST', '/v1/sessions', { sessionId });
      if (res.status >= 300) throw new Error(`creating ${sessionId} answered ${res.status}: ${res.text.slice(0, 300)}`);
    }),
  );
  /** Sends step `i` of a session; records (and returns) its latency when it answered. */
  const step = async (sessionId: string, i: number, recorder?: LatencyRecorder): Promise<number | undefined> => {
    const r = spec.unit === 'turn' ? turnRequest(sessionId, i) : stepRequest(sessionId, Math.floor(i / STEPS_PER_TURN), i % STEPS_PER_TURN);
    const begin = performance.now();
    try {
      const res = await send(r.method, r.path, r.body);
      const ms = performance.now() - begin;
      recorder?.record(ms);
      if (res.status >= 300) fail(`${r.method} ${r.path} answered ${res.status}: ${res.text.slice(0, 300)}`);
      return ms;
    } catch (error) {
      fail(`${r.method} ${r.path}: ${(error as Error).message}`);
      return undefined;
    }
  };
  await Promise.all(
    ids.map(async (id) => {
      for (let i = 0; i < spec.warmup; i++) await step(id, i);
    }),
  );
  const recorder = new LatencyRecorder();
  mark('measure-start');
  const cpu = process.cpuUsage();
  const start = performance.now();
  const deadline = spec.durationMs === undefined ? Infinity : start + spec.durationMs;
  const bucketMs = spec.bucketMs ?? 60_000;
  const buckets: LatencyRecorder[] = [];
  const timed = async (id: string, i: number) => {
    const ms = await step(id, i, recorder);
    if (ms === undefined) return;
    const bucket = Math.floor((performance.now() - start) / bucketMs);
    (buckets[bucket] ??= new LatencyRecorder()).record(ms);
  };
  await Promise.all(
    ids.map(async (id) => {
      if (spec.durationMs === undefined) for (let i = spec.warmup; i < spec.warmup + spec.steps; i++) await step(id, i, recorder);
      else for (let i = spec.warmup; performance.now() < deadline; i++) await timed(id, i);
    }),
  );
  const elapsedMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  mark('measure-end');
  const requests = recorder.size;
  return {
    requests,
    errors,
    firstError,
    elapsedMs,
    requestsPerSecond: (requests - errors) / (elapsedMs / 1000),
    eventsPerSecond: ((requests - errors) * (spec.unit === 'turn' ? STEPS_PER_TURN : 1)) / (elapsedMs / 1000),
    latency: recorder.summary(),
    histogram: recorder.histogram(),
    clientCpuMs: (used.user + used.system) / 1000,
    client: spec.client === 'fetch' ? 'fetch (undici), keep-alive' : 'node:http, keep-alive Agent',
    ...(spec.durationMs === undefined
      ? {}
      : {
          buckets: Array.from({ length: buckets.length }, (_, b) => {
            const summary = buckets[b]?.summary();
            const n = buckets[b]?.size ?? 0;
            const span = Math.min(bucketMs, elapsedMs - b * bucketMs);
            return { requests: n, requestsPerSecond: n / (span / 1000), p50: summary?.p50 ?? 0, p99: summary?.p99 ?? 0 };
          }),
        }),
  };
}

if (require.main === module) clientMain(runLoad);
