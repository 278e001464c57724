/**
 * The agent's view of the HTTP path: one client in its own process (as an agent runtime calls
 * Rewind), one request at a time over a keep-alive connection, `warmup` unmeasured then `runs`
 * measured. Used with the same spec against Rewind and the null Fastify server in one run, so
 * their ratio is what Rewind adds to HTTP itself. Bounded; prints one line `RESULT <json>`.
 *
 * Usage: node dist/test/bench/suite/latency-client.js '<json LatencySpec>'
 */
import { performance } from 'node:perf_hooks';
import { clientMain, mark } from './client-process';
import { STEPS_PER_TURN, stepRequest } from './conversation';
import { httpSender } from './http-senders';
import { LatencyRecorder, randomInt, type Histogram, type LatencySummary } from './recorder';

export type LatencyOp =
  /** The conversation's steps (POST/PUT, one event each), continuing session `sessionId` from turn `fromTurn`. */
  | { kind: 'write'; sessionId: string; fromTurn: number }
  /** One message (POST …/messages, one event), user and agent in turn, continuing session `sessionId`. */
  | { kind: 'message'; sessionId: string }
  /** GET `path`, always the same (e.g. the current state of a session). */
  | { kind: 'read'; path: string }
  /** GET `${path}?at=<random 1..head>${query}` (time travel). */
  | { kind: 'read-at'; path: string; head: number; query?: string };

export interface LatencySpec {
  baseUrl: string;
  apiKey: string;
  op: LatencyOp;
  runs: number;
  warmup: number;
}

export interface LatencyResult {
  latency: LatencySummary;
  histogram: Histogram;
  /** Bytes of the last answer (what one read transfers). */
  answerBytes: number;
  clientCpuMs: number;
}

export async function runLatency(spec: LatencySpec): Promise<LatencyResult> {
  const send = httpSender(spec, 1);
  const { op } = spec;
  const request = (i: number): { method: string; path: string; body: unknown } => {
    if (op.kind === 'write') {
      const step = op.fromTurn * STEPS_PER_TURN + i;
      return stepRequest(op.sessionId, Math.floor(step / STEPS_PER_TURN), step % STEPS_PER_TURN);
    }
    if (op.kind === 'message') return stepRequest(op.sessionId, Math.floor(i / 2), i % 2 === 0 ? 0 : 3);
    if (op.kind === 'read') return { method: 'GET', path: op.path, body: undefined };
    return { method: 'GET', path: `${op.path}?at=${randomInt(1, op.head)}${op.query ?? ''}`, body: undefined };
  };
  const recorder = new LatencyRecorder();
  let answerBytes = 0;
  const cpu = process.cpuUsage();
  for (let i = 0; i < spec.warmup + spec.runs; i++) {
    if (i === spec.warmup) mark('measure-start');
    const r = request(i);
    const begin = performance.now();
    const res = await send(r.method, r.path, r.body);
    const ms = performance.now() - begin;
    if (res.status >= 300) throw new Error(`${r.method} ${r.path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    if (i >= spec.warmup) recorder.record(ms);
    answerBytes = Buffer.byteLength(res.text);
  }
  const used = process.cpuUsage(cpu);
  mark('measure-end');
  return { latency: recorder.summary(), histogram: recorder.histogram(), answerBytes, clientCpuMs: (used.user + used.system) / 1000 };
}

if (require.main === module) clientMain(runLatency);
