/**
 * MEM over HTTP (issue 12 item 9): W3's append latency while W4's load runs, with the memory
 * indexer off and then on (the default: a worker thread with a bounded CPU share), and the
 * indexer's lag under that load and the time it takes to catch up after it.
 *
 * For each setting a fresh API (createApp, in this process) gets W4's load from a second
 * process (load-client.ts: 100 sessions, one step per request) while one W3 writer here appends
 * steps one at a time; only the W3 requests sent while the load runs are recorded. The indexer's
 * status route is polled every 50 ms meanwhile: its lag in events, and how long ago the indexed
 * position was the log's head (commit → indexed, at 50 ms resolution).
 */
import { performance } from 'node:perf_hooks';
import { STEPS_PER_TURN, stepRequest } from '../conversation';
import { httpSender } from '../http-senders';
import type { LoadSpec } from '../load-client';
import { startRewindApi, type RunningApi } from '../peers/rewind-http';
import { LatencyRecorder } from '../recorder';
import { latencyRow, type Row, type StoreName } from '../results';
import type { Sizes } from '../sizes';
import { runLoadClient } from './w4-throughput';

export interface StatusSample {
  at: number;
  lastPosition: number;
  checkpoint: number;
  /** Events not yet searchable (by keywords, with two-stage indexing). */
  lag: number;
  /** Items searchable by keywords but not yet embedded (two-stage indexing; 0 with one stage or an API without the field). */
  pendingVectors: number;
}

export async function memoryStatus(api: RunningApi): Promise<StatusSample | null> {
  const res = await fetch(`${api.baseUrl}/v1/memory/status`, { headers: { authorization: `Bearer ${api.apiKey}` } });
  const body = (await res.json()) as { enabled: boolean; lastPosition?: number; checkpoint?: number; lag?: number; pendingVectors?: number };
  if (!body.enabled) return null;
  return { at: performance.now(), lastPosition: body.lastPosition!, checkpoint: body.checkpoint!, lag: body.lag!, pendingVectors: body.pendingVectors ?? 0 };
}

/** Commit → indexed delays: for each sample, how long before it the indexed position was the log's head. */
function indexDelays(samples: StatusSample[]): LatencyRecorder {
  const delays = new LatencyRecorder();
  for (const sample of samples) {
    const headThen = samples.find((s) => s.lastPosition >= sample.checkpoint);
    if (headThen) delays.record(sample.at - headThen.at);
  }
  return delays;
}

async function underLoad(store: StoreName, run: string, sizes: Sizes, memory: 'on' | 'off'): Promise<Row[]> {
  const api = await startRewindApi(store, run, `memload_${memory}`, { REWIND_MEMORY: memory });
  try {
    const send = httpSender(api, 4);
    const request = async (method: string, path: string, body: unknown) => {
      const res = await send(method, path, body);
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    };
    const writer = `w3load-${memory}`;
    await request('POST', '/v1/sessions', { sessionId: writer });
    // The model loads (and the first status answers) before the load starts: the row measures indexing, not start-up.
    if (memory === 'on') for (let i = 0; i < 600 && (await memoryStatus(api))?.checkpoint === undefined; i++) await new Promise((r) => setTimeout(r, 50));

    const spec: LoadSpec = {
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      sessions: sizes.concurrentSessions,
      steps: sizes.throughputSteps,
      warmup: sizes.throughputWarmup,
      prefix: `w4load-${memory}`,
      client: 'http',
    };
    let loading = true;
    const load = runLoadClient(spec).finally(() => (loading = false));
    const samples: StatusSample[] = [];
    const poller = (async () => {
      while (loading && memory === 'on') {
        const sample = await memoryStatus(api);
        if (sample) samples.push(sample);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const latency = new LatencyRecorder();
    // W3's writer: one step at a time; recorded while the load lasts, after its first second (its set-up and warm-up) in full runs.
    const recordFrom = performance.now() + (sizes.quick ? 0 : 1000);
    for (let i = 0; loading && i < 100_000; i++) {
      const step = stepRequest(writer, Math.floor(i / STEPS_PER_TURN), i % STEPS_PER_TURN);
      const begin = performance.now();
      await request(step.method, step.path, step.body);
      if (loading && begin >= recordFrom) latency.record(performance.now() - begin);
    }
    const loadResult = await load;
    await poller;
    const loadEnded = performance.now();
    if (loadResult.errors > 0) throw new Error(`W4 load under MEM: ${loadResult.errors} failed requests, first: ${loadResult.firstError}`);

    const rows: Row[] = [];
    const base = { workload: 'MEM' as const, system: 'rewind' as const, store, path: 'http' };
    const notes = [
      api.description,
      `W4 load: ${spec.sessions} sessions × ${spec.steps} steps from a second process, ${Math.round(loadResult.eventsPerSecond)} events/s`,
    ];
    rows.push(
      latencyRow(
        {
          ...base,
          key: `MEM.http.w3-under-w4.${memory}`,
          label: `W3 append over HTTP under W4's load, memory indexer ${memory === 'on' ? `on (${process.env.REWIND_MEMORY_INDEXER === 'process' ? 'on the event loop' : 'worker thread'})` : 'off'}`,
          notes,
          extra: { w4EventsPerSecond: loadResult.eventsPerSecond, w4P99: loadResult.latency.p99, w3Requests: latency.size },
        },
        latency,
      ),
    );
    if (memory === 'on') {
      let caughtUp: StatusSample | null = null;
      for (let i = 0; i < 6000; i++) {
        const sample = await memoryStatus(api);
        if (sample && sample.lag === 0 && sample.pendingVectors === 0) {
          caughtUp = sample;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const lagPositions = samples.map((s) => s.lag).sort((a, b) => a - b);
      rows.push(
        latencyRow(
          {
            ...base,
            key: 'MEM.http.lag-under-w4',
            label: "index lag under W4's load: commit → indexed (ms, from the status route every 50 ms)",
            notes,
            extra: {
              samples: samples.length,
              // In global positions: events on SQLite; on PostgreSQL positions are not dense (they carry the transaction), so read the ms.
              lagPositionsP50: lagPositions[Math.floor(lagPositions.length / 2)] ?? 0,
              lagPositionsMax: lagPositions[lagPositions.length - 1] ?? 0,
              catchUpAfterLoadMs: caughtUp ? caughtUp.at - loadEnded : null,
            },
          },
          indexDelays(samples),
        ),
      );
    }
    for (const row of rows) {
      console.error(`  ${row.key}: p50 ${row.latency!.p50.toFixed(3)} p99 ${row.latency!.p99.toFixed(3)} ${JSON.stringify(row.extra)}`);
    }
    return rows;
  } finally {
    await api.close();
  }
}

/** Both settings, off first (the baseline), on the same machine in the same run. */
export async function measureAppendUnderLoad(store: StoreName, run: string, sizes: Sizes): Promise<Row[]> {
  return [...(await underLoad(store, run, sizes, 'off')), ...(await underLoad(store, run, sizes, 'on'))];
}
