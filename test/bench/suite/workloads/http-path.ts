/**
 * The HTTP path as an agent sees it (issue 17): the client in its own process (latency-client.ts),
 * one request at a time, against Rewind's API and against the null Fastify server with the same
 * client in the same run; the ratio is what Rewind adds to HTTP itself.
 *  - HTTP.write: one step (one event) written, the conversation's steps in turn;
 *  - HTTP.read: the current state of a 20-turn session (the null server answers the same document);
 *  - W2 over HTTP: the state at a random version of a long session, whole and as a window of the
 *    conversation (`turns=last:20`).
 */
import { STEPS_PER_TURN, turnRequest } from '../conversation';
import { runClientProcess } from '../client-process';
import { httpSender } from '../http-senders';
import type { LatencyResult, LatencySpec } from '../latency-client';
import type { RunningApi } from '../peers/rewind-http';
import { profiled } from '../profiler';
import type { Row, StoreName } from '../results';
import type { Sizes } from '../sizes';
import { startDurableFloor } from './durable-floor';
import { startNullServer } from './http-ceiling';

/** The window the W2 "ask for less" row reads. */
export const W2_WINDOW_TURNS = 20;

const CLIENT_NOTE = 'client in its own process (node:http keep-alive, one request at a time)';

async function writeTurns(api: RunningApi, sessionId: string, turns: number): Promise<number> {
  const send = httpSender(api, 1);
  const created = await send('POST', '/v1/sessions', { sessionId });
  if (created.status !== 201) throw new Error(`creating ${sessionId} answered ${created.status}: ${created.text.slice(0, 300)}`);
  let head = 1;
  for (let t = 0; t < turns; t++) {
    const r = turnRequest(sessionId, t);
    const res = await send(r.method, r.path, r.body);
    if (res.status !== 201) throw new Error(`turn ${t} of ${sessionId} answered ${res.status}: ${res.text.slice(0, 300)}`);
    head = (JSON.parse(res.text) as { head: number }).head;
  }
  return head;
}

/** The client's figures, and this process's CPU time per measured request, whole and the event loop thread's (the server's: API or null server, nothing else runs here meanwhile). */
async function measure(
  name: string,
  spec: LatencySpec,
): Promise<LatencyResult & { serverCpuUsPerRequest: number | null; serverLoopCpuUsPerRequest: number | null }> {
  let from: { process: NodeJS.CpuUsage; thread: NodeJS.CpuUsage } | undefined;
  let used: { process: NodeJS.CpuUsage; thread: NodeJS.CpuUsage } | undefined;
  const onMark = (m: string) => {
    if (m === 'measure-start') from = { process: process.cpuUsage(), thread: process.threadCpuUsage() };
    else if (m === 'measure-end' && from) used = { process: process.cpuUsage(from.process), thread: process.threadCpuUsage(from.thread) };
  };
  const result = await profiled(name, () => runClientProcess<LatencyResult>('latency-client.js', spec, onMark));
  const perRequest = (cpu: NodeJS.CpuUsage | undefined) => (cpu && spec.runs > 0 ? (cpu.user + cpu.system) / spec.runs : null);
  return { ...result, serverCpuUsPerRequest: perRequest(used?.process), serverLoopCpuUsPerRequest: perRequest(used?.thread) };
}

export async function measureHttpPath(api: RunningApi, store: StoreName, run: string, sizes: Sizes): Promise<Row[]> {
  const { httpPathRuns: runs, httpPathWarmup: warmup } = sizes;
  const reader = 'agent-read';
  await writeTurns(api, reader, 20);
  const state = JSON.parse((await httpSender(api, 1)('GET', `/v1/sessions/${reader}`, undefined)).text) as unknown;
  const nullServer = await startNullServer(state);
  const floorServer = await startDurableFloor(store, run, state);
  const rows: Row[] = [];
  try {
    const ops = [
      { key: 'HTTP.write', what: 'one step written (POST/PUT, one event)', op: { kind: 'write', sessionId: 'agent-write', fromTurn: 0 } as const },
      {
        key: 'HTTP.message',
        what: 'one message written (POST /v1/sessions/:id/messages, one event)',
        op: { kind: 'message', sessionId: 'agent-message' } as const,
      },
      { key: 'HTTP.read', what: 'current state of a 20-turn session (GET /v1/sessions/:id)', op: { kind: 'read', path: `/v1/sessions/${reader}` } as const },
    ];
    await httpSender(api, 1)('POST', '/v1/sessions', { sessionId: 'agent-write' });
    await httpSender(api, 1)('POST', '/v1/sessions', { sessionId: 'agent-message' });
    for (const { key, what, op } of ops) {
      // The null server first and last around Rewind, so drift in the machine's load shows.
      const before = await measure(`${key}-null-${store}`, { baseUrl: nullServer.baseUrl, apiKey: 'null-server', op, runs, warmup });
      const rewind = await measure(`${key}-rewind-${store}`, { baseUrl: api.baseUrl, apiKey: api.apiKey, op, runs, warmup });
      const after = await measure(`${key}-null-${store}-again`, { baseUrl: nullServer.baseUrl, apiKey: 'null-server', op, runs, warmup });
      const floor = before.latency.p50 <= after.latency.p50 ? before : after;
      // Writes against the durable floor too (issue 40), before and after Rewind in the same way.
      const durable =
        op.kind === 'read'
          ? null
          : await (async () => {
              const first = await measure(`${key}-floor-${store}`, { baseUrl: floorServer.baseUrl, apiKey: 'floor', op, runs, warmup });
              const again = await measure(`${key}-floor-${store}-again`, { baseUrl: floorServer.baseUrl, apiKey: 'floor', op, runs, warmup });
              return first.latency.p50 <= again.latency.p50 ? first : again;
            })();
      const label = `${what}, ${CLIENT_NOTE}`;
      rows.push({
        workload: 'HTTP',
        key,
        label,
        system: 'rewind',
        store,
        path: 'http (client process)',
        latency: rewind.latency,
        histogram: rewind.histogram,
        notes: [api.description],
        extra: {
          answerBytes: rewind.answerBytes,
          clientCpuMs: rewind.clientCpuMs,
          apiCpuUsPerRequest: rewind.serverCpuUsPerRequest,
          apiLoopCpuUsPerRequest: rewind.serverLoopCpuUsPerRequest,
          nullP50: floor.latency.p50,
          nullP99: floor.latency.p99,
          p50Ratio: rewind.latency.p50 / floor.latency.p50,
          p99Ratio: rewind.latency.p99 / floor.latency.p99,
          nullRuns: [before.latency, after.latency],
          ...(durable
            ? {
                floorP50: durable.latency.p50,
                floorP99: durable.latency.p99,
                p50FloorRatio: rewind.latency.p50 / durable.latency.p50,
                p99FloorRatio: rewind.latency.p99 / durable.latency.p99,
              }
            : {}),
        },
      });
      if (durable)
        rows.push({
          workload: 'HTTP',
          key,
          label,
          system: 'floor',
          store,
          path: 'http (client process)',
          latency: durable.latency,
          histogram: durable.histogram,
          notes: [`${floorServer.description}; measured twice beside Rewind, the better p50 kept`],
          extra: {
            pairedWith: store,
            answerBytes: durable.answerBytes,
            apiCpuUsPerRequest: durable.serverCpuUsPerRequest,
            apiLoopCpuUsPerRequest: durable.serverLoopCpuUsPerRequest,
          },
        });
      rows.push({
        workload: 'HTTP',
        key,
        label,
        system: 'http',
        store: 'none',
        path: 'http (client process)',
        latency: floor.latency,
        histogram: floor.histogram,
        notes: [
          `null Fastify server, measured before and after Rewind (${store} job): the better of the two p50s is kept`,
          op.kind === 'read' ? `answers the same ${rewind.answerBytes}-byte document Rewind sent` : 'parses the body, answers a small 201',
        ],
        extra: {
          pairedWith: store,
          answerBytes: floor.answerBytes,
          apiCpuUsPerRequest: floor.serverCpuUsPerRequest,
          apiLoopCpuUsPerRequest: floor.serverLoopCpuUsPerRequest,
        },
      });
      console.error(
        `  HTTP ${key} ${store}: Rewind p50 ${rewind.latency.p50.toFixed(3)} / p99 ${rewind.latency.p99.toFixed(3)} ms, API CPU ${Math.round(rewind.serverCpuUsPerRequest ?? NaN)} µs/request (event loop ${Math.round(rewind.serverLoopCpuUsPerRequest ?? NaN)}); null p50 ${floor.latency.p50.toFixed(3)} / p99 ${floor.latency.p99.toFixed(3)} ms${durable ? `; durable floor p50 ${durable.latency.p50.toFixed(3)} / p99 ${durable.latency.p99.toFixed(3)} ms, CPU ${Math.round(durable.serverCpuUsPerRequest ?? NaN)} µs/request` : ''}`,
      );
    }
  } finally {
    await nullServer.close();
    await floorServer.close();
  }
  return rows;
}

/** W2 over HTTP: a long session written turn by turn, then read at random versions, whole and windowed. */
export async function measureHttpTimeTravel(api: RunningApi, store: StoreName, sizes: Sizes): Promise<Row[]> {
  const sessionId = 'long-http';
  const start = Date.now();
  const head = await writeTurns(api, sessionId, sizes.longTurns);
  const loadMs = Date.now() - start;
  const rows: Row[] = [];
  const label = `state at a random past version of a ${head.toLocaleString('en-US')}-event session over HTTP`;
  for (const [key, query, note] of [
    ['W2.http', '', 'GET /v1/sessions/:id/state?at=v: the whole state'],
    [
      'W2.http.window',
      `&turns=last:${W2_WINDOW_TURNS}`,
      `GET …/state?at=v&turns=last:${W2_WINDOW_TURNS}: the last ${W2_WINDOW_TURNS} turns and their tool calls`,
    ],
  ] as const) {
    const result = await measure(`W2-http-${store}-${key}`, {
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      op: { kind: 'read-at', path: `/v1/sessions/${sessionId}/state`, head, query },
      runs: sizes.timeTravelRuns,
      warmup: Math.min(20, sizes.timeTravelRuns),
    });
    rows.push({
      workload: 'W2',
      key,
      label: query ? `${label}, a window of the conversation (turns=last:${W2_WINDOW_TURNS})` : label,
      system: 'rewind',
      store,
      path: 'http (client process)',
      latency: result.latency,
      histogram: result.histogram,
      notes: [note, CLIENT_NOTE, `last answer ${result.answerBytes} bytes`],
      extra: { head, loadMs, answerBytes: result.answerBytes, turns: sizes.longTurns, eventsPerTurn: STEPS_PER_TURN },
    });
    console.error(
      `  W2 rewind/${store} ${key}: p50 ${result.latency.p50.toFixed(3)} ms p99 ${result.latency.p99.toFixed(3)} ms, last answer ${result.answerBytes} B`,
    );
  }
  return rows;
}
