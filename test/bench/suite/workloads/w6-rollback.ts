/**
 * W6 rollback: undo over 10 effectful calls, each compensated by a local HTTP service (the demo's
 * TravelService), through the HTTP API: the time from `POST …/rollback {toVersion: 1, waitMs}` to
 * its answer with the rollback completed (plan, 10 compensations over HTTP, their records, head
 * move). As test/bench/rollback.bench.ts, on both stores.
 */
import { performance } from 'node:perf_hooks';
import { TravelService } from '@rewind/demo';
import { httpClient } from '../../../support/http-client';
import type { RunningApi } from '../peers/rewind-http';
import { profiled } from '../profiler';
import { LatencyRecorder } from '../recorder';
import { latencyRow, type Row } from '../results';
import type { Sizes } from '../sizes';

const WARMUP = 3;
const EFFECTS = 10;

export async function measureRollback(api: RunningApi, sizes: Sizes): Promise<Row> {
  const http = httpClient(api.baseUrl, api.apiKey);
  const travel = new TravelService();
  await travel.start();
  try {
    const registered = await http('PUT', '/v1/tools/book_hotels', {
      kind: 'reversible',
      compensation: { channel: 'http', target: `${travel.url}/hotels/{{output.bookingId}}/cancel` },
    });
    if (registered.status >= 300) throw new Error(`registering the tool answered ${registered.status}: ${JSON.stringify(registered.body)}`);
    const recorder = new LatencyRecorder();
    const prepare = async (id: string) => {
      const started = await http('POST', '/v1/sessions', { sessionId: id });
      if (started.status !== 201) throw new Error(`start answered ${started.status}`);
      for (let c = 0; c < EFFECTS; c++) {
        await http('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: `h${c}`, tool: 'book_hotels', input: { night: c } });
        const booked = (await (
          await fetch(`${travel.url}/hotels`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
        ).json()) as { bookingId: string };
        await http('POST', `/v1/sessions/${id}/tool-calls/h${c}/succeed`, { output: booked });
      }
    };
    const rollback = async (id: string, record: boolean) => {
      const start = performance.now();
      const res = await http('POST', `/v1/sessions/${id}/rollback`, { toVersion: 1, waitMs: 30_000 });
      const elapsed = performance.now() - start;
      if (res.status !== 200 || res.body?.rollback?.status !== 'completed')
        throw new Error(`rollback did not complete: ${res.status} ${JSON.stringify(res.body)}`);
      if (record) recorder.record(elapsed);
    };
    for (let run = 0; run < WARMUP; run++) {
      await prepare(`w6-warm-${run}`);
      await rollback(`w6-warm-${run}`, false);
    }
    const ids = Array.from({ length: sizes.rollbackRuns }, (_, run) => `w6-${run}`);
    for (const id of ids) await prepare(id);
    await profiled(`W6-rewind-${api.store}`, async () => {
      for (const id of ids) await rollback(id, true);
    });
    const compensated = [...travel.cancellations.values()].reduce((a, b) => a + b, 0);
    const expected = (WARMUP + sizes.rollbackRuns) * EFFECTS;
    if (compensated !== expected) throw new Error(`expected ${expected} cancellations, the travel service saw ${compensated}`);
    const row = latencyRow(
      {
        workload: 'W6',
        key: 'W6.rollback',
        label: `rollback over ${EFFECTS} effects with local HTTP compensators (request to completion)`,
        system: 'rewind',
        store: api.store,
        path: 'http',
        notes: [api.description, 'all sessions prepared first; each rollback measured alone'],
      },
      recorder,
    );
    console.error(`  W6 rewind/${api.store}: p50 ${row.latency!.p50.toFixed(2)} ms p99 ${row.latency!.p99.toFixed(2)} ms`);
    return row;
  } finally {
    await travel.stop();
  }
}
