/**
 * W4's load generator, run as its own process by the W4 job (so that its CPU is not the server's
 * event loop): `sessions` virtual agents, each writing its own session one step at a time over a
 * keep-alive connection, for `warmup` unmeasured then `steps` measured steps. Bounded: it stops by
 * itself. Prints one line `RESULT <json>`.
 *
 * Usage: node dist/test/bench/suite/load-client.js '<json LoadSpec>'
 */
import { performance } from 'node:perf_hooks';
import { clientMain } from './client-process';
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
  const step = async (sessionId: string, i: number, recorder?: LatencyRecorder) => {
    const r = spec.unit === 'turn' ? turnRequest(sessionId, i) : stepRequest(sessionId, Math.floor(i / STEPS_PER_TURN), i % STEPS_PER_TURN);
    const begin = performance.now();
    try {
      const res = await send(r.method, r.path, r.body);
      recorder?.record(performance.now() - begin);
      if (res.status >= 300) fail(`${r.method} ${r.path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    } catch (error) {
      fail(`${r.method} ${r.path}: ${(error as Error).message}`);
    }
  };
  await Promise.all(
    ids.map(async (id) => {
      for (let i = 0; i < spec.warmup; i++) await step(id, i);
    }),
  );
  const recorder = new LatencyRecorder();
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      for (let i = spec.warmup; i < spec.warmup + spec.steps; i++) await step(id, i, recorder);
    }),
  );
  const elapsedMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
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
  };
}

if (require.main === module) clientMain(runLoad);
