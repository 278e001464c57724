/**
 * Issue 40's HTTP targets: Rewind against the durable floor (durable-floor.ts: Fastify and one
 * INSERT of the body on the same store), measured with the same client in the same job.
 */
import { fmtCount, fmtMs } from './recorder';
import type { Row } from './results';
import { STORES, type TargetCheck } from './target-check';

const measuredRow = (rows: Row[], system: Row['system'], store: string, key: string) =>
  rows.find((r) => r.system === system && r.store === store && r.key === key && !r.notMeasured);

export function issue40Targets(rows: Row[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const [store, name] of STORES) {
    for (const [key, floorKey, unit] of [
      ['W4.http.turn', 'W4.floor.turn', 'a turn per request'],
      ['W4.http', 'W4.floor', 'a step per request'],
    ] as const) {
      const target = `W4 over HTTP, ${name}, ${unit}: ≥ 60 % of the durable floor's requests/s, same client (issue 40)`;
      const rps = measuredRow(rows, 'rewind', store, key)?.extra?.requestsPerSecond as number | undefined;
      const floor = measuredRow(rows, 'floor', store, floorKey);
      const floorRps = floor?.extra?.requestsPerSecond as number | undefined;
      const cpu = (row: Row | undefined) => row?.extra?.apiCpuUsPerRequest as number | undefined;
      const rewindCpu = cpu(measuredRow(rows, 'rewind', store, key));
      if (!rps || !floorRps) {
        checks.push({ target, measured: 'not measured', met: null, value: null });
        continue;
      }
      const cpuNote = rewindCpu && cpu(floor) ? `; API CPU ${fmtCount(rewindCpu)} vs ${fmtCount(cpu(floor)!)} µs a request` : '';
      checks.push({
        target,
        measured: `${fmtCount(rps)} vs ${fmtCount(floorRps)} requests/s (${((rps / floorRps) * 100).toFixed(0)} %)${cpuNote}`,
        met: rps / floorRps >= 0.6,
        value: rps / floorRps,
      });
    }
    const target = `One message over HTTP, ${name}: p50 ≤ 1.1× the durable floor's (issue 40)`;
    const message = measuredRow(rows, 'rewind', store, 'HTTP.message');
    const ratio = message?.extra?.p50FloorRatio as number | undefined;
    checks.push(
      !message?.latency || ratio === undefined
        ? { target, measured: 'not measured', met: null, value: null }
        : {
            target,
            measured: `p50 ${fmtMs(message.latency.p50)} vs ${fmtMs(message.extra!.floorP50 as number)} ms (${ratio.toFixed(2)}×), p99 ${fmtMs(message.latency.p99)} vs ${fmtMs(message.extra!.floorP99 as number)} ms`,
            met: ratio <= 1.1,
            value: ratio,
          },
    );
  }
  return checks;
}
