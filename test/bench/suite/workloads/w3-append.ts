/**
 * W3 append latency: one step per write, one session at a time, for `appendTurns` turns; the
 * latencies are kept in buckets by turn (1–20, the middle 20, the last 20) to show whether the
 * cost grows with the session's length.
 *  - library: Rewind `SessionService.execute` (load from its cache + decide + append + fold);
 *    Emmett `appendToStream` of the same event with its expected version; LangGraph `put` of the
 *    step's checkpoint.
 *  - http: the real API (createApp, in this process) with fetch (undici, keep-alive).
 */
import { performance } from 'node:perf_hooks';
import type { SystemAdapter } from '../adapter';
import { STEPS_PER_TURN, stepRequest } from '../conversation';
import { fetchSender, httpSender } from '../http-senders';
import { profiled } from '../profiler';
import { LatencyRecorder } from '../recorder';
import { latencyRow, type Row, type StoreName, type SystemName } from '../results';
import { appendBuckets, type Sizes } from '../sizes';

/** Turns of an unrecorded session written first. */
const WARMUP_TURNS = 20;

class BucketedLatency {
  readonly buckets: { label: string; from: number; to: number; recorder: LatencyRecorder }[];
  readonly all = new LatencyRecorder();

  constructor(turns: number) {
    this.buckets = appendBuckets(turns).map((b) => ({ ...b, recorder: new LatencyRecorder() }));
  }

  record(turn: number, ms: number): void {
    this.all.record(ms);
    for (const bucket of this.buckets) if (turn >= bucket.from && turn <= bucket.to) bucket.recorder.record(ms);
  }

  rows(base: { system: SystemName; store: StoreName; path: string; keyPrefix: string; what: string; notes: string[] }, extra: Record<string, unknown>): Row[] {
    const rows: Row[] = this.buckets.map((bucket, i) =>
      latencyRow(
        {
          workload: 'W3',
          key: `${base.keyPrefix}.b${i}`,
          label: `${base.what}, ${bucket.label}`,
          system: base.system,
          store: base.store,
          path: base.path,
          notes: base.notes,
        },
        bucket.recorder,
      ),
    );
    const first = this.buckets[0]!.recorder.summary();
    const last = this.buckets[this.buckets.length - 1]!.recorder.summary();
    const growth = { p50: last.p50 / first.p50, p99: last.p99 / first.p99 };
    rows.push(
      latencyRow(
        {
          workload: 'W3',
          key: `${base.keyPrefix}.all`,
          label: `${base.what}, all turns`,
          system: base.system,
          store: base.store,
          path: base.path,
          notes: base.notes,
          extra: { ...extra, growthLastOverFirst: growth },
        },
        this.all,
      ),
    );
    return rows;
  }
}

function log(rows: Row[], what: string): void {
  for (const row of rows) {
    console.error(`  W3 ${what} ${row.label}: p50 ${row.latency!.p50.toFixed(3)} ms p99 ${row.latency!.p99.toFixed(3)} ms`);
  }
}

/** Library-level appends; returns the last session written (LangGraph's is W2's data). */
export async function measureLibraryAppend(adapter: SystemAdapter, sizes: Sizes): Promise<{ rows: Row[]; last: { sessionId: string; head: number } }> {
  const turns = adapter.system === 'langgraph' ? sizes.langgraphTurns : sizes.appendTurns;
  const latency = new BucketedLatency(turns);
  let sessionId = '';
  const sessions = adapter.system === 'langgraph' ? 1 : sizes.appendSessions;
  // Warm-up (not recorded): a short session first, so that the first bucket is not the JIT's.
  await adapter.prepare?.('w3-warm', WARMUP_TURNS);
  await adapter.startSession('w3-warm');
  for (let t = 0; t < WARMUP_TURNS; t++) for (let s = 0; s < STEPS_PER_TURN; s++) await adapter.appendStep('w3-warm', t, s);
  const start = Date.now();
  for (let k = 0; k < sessions; k++) {
    sessionId = `w3-${k}`;
    await adapter.prepare?.(sessionId, turns);
    await adapter.startSession(sessionId);
    await profiled(`W3-library-${adapter.system}-${adapter.store}-${k}`, async () => {
      for (let t = 0; t < turns; t++) {
        for (let s = 0; s < STEPS_PER_TURN; s++) {
          const begin = performance.now();
          await adapter.appendStep(sessionId, t, s);
          latency.record(t + 1, performance.now() - begin);
        }
      }
    });
  }
  const notes =
    adapter.system === 'rewind'
      ? ['SessionService.execute: state from its cache, decide, append, fold (what the API runs per step)']
      : adapter.system === 'emmett'
        ? ['appendToStream of the pre-built event with its expected version (no load, no decide)']
        : ['put of a checkpoint whose changed channel holds the full value (messages list or memory map)'];
  const rows = latency.rows(
    { system: adapter.system, store: adapter.store, path: 'library', keyPrefix: 'W3.lib', what: `append one step (library, ${turns}-turn sessions)`, notes },
    { sessions, turns, wallMs: Date.now() - start, description: adapter.description },
  );
  log(rows, `${adapter.system}/${adapter.store} library`);
  return { rows, last: { sessionId, head: 1 + turns * STEPS_PER_TURN } };
}

export interface HttpTarget {
  baseUrl: string;
  apiKey: string;
}

/** W3's client: node:http with a keep-alive Agent (the lightest Node client), or fetch (undici). */
export type HttpClientKind = 'http' | 'fetch';

function sender(target: HttpTarget, kind: HttpClientKind): (method: string, path: string, body: unknown) => Promise<unknown> {
  const send = kind === 'fetch' ? fetchSender(target) : httpSender(target, 4);
  return async (method, path, body) => {
    const res = await send(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return res.text ? JSON.parse(res.text) : null;
  };
}

export async function measureHttpAppend(target: HttpTarget, store: StoreName, sizes: Sizes, prefix: string, client: HttpClientKind = 'http'): Promise<Row[]> {
  const turns = sizes.appendTurns;
  const latency = new BucketedLatency(turns);
  const request = sender(target, client);
  const warm = `${prefix}-warm`;
  await request('POST', '/v1/sessions', { sessionId: warm });
  for (let t = 0; t < WARMUP_TURNS; t++) {
    for (let s = 0; s < STEPS_PER_TURN; s++) {
      const step = stepRequest(warm, t, s);
      await request(step.method, step.path, step.body);
    }
  }
  const start = Date.now();
  for (let k = 0; k < sizes.httpAppendSessions; k++) {
    const sessionId = `${prefix}-${k}`;
    await request('POST', '/v1/sessions', { sessionId });
    await profiled(`W3-http-${client}-rewind-${store}-${k}`, async () => {
      for (let t = 0; t < turns; t++) {
        for (let s = 0; s < STEPS_PER_TURN; s++) {
          const step = stepRequest(sessionId, t, s);
          const begin = performance.now();
          await request(step.method, step.path, step.body);
          latency.record(t + 1, performance.now() - begin);
        }
      }
    });
  }
  const rows = latency.rows(
    {
      system: 'rewind',
      store,
      path: client === 'http' ? 'http' : 'http (fetch client)',
      keyPrefix: client === 'http' ? 'W3.http' : 'W3.http.fetch',
      what: `append one step over HTTP (${turns}-turn sessions)`,
      notes: [
        `the real API (createApp) in this process; client in the same process: ${client === 'http' ? 'node:http keep-alive Agent' : 'fetch (undici), keep-alive'}, one request at a time`,
      ],
    },
    { sessions: sizes.httpAppendSessions, turns, wallMs: Date.now() - start },
  );
  log(rows, `rewind/${store} http`);
  return rows;
}
