/** The HTTP-path section of BENCHMARKS.md and issue 17's targets for it (kept apart from report.ts). */
import { fmtMs } from './recorder';
import type { Row } from './results';
import { STORES, type TargetCheck } from './target-check';

const rewindRow = (rows: Row[], key: string, store: string) => rows.find((r) => r.system === 'rewind' && r.key === key && r.store === store && r.latency);

/** Issue 17: p50 ≤ 2× and p99 ≤ 1.5× the null server's (same client, same run); W2 over HTTP p99 ≤ 10 ms. */
export function httpPathTargets(rows: Row[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const [store, name] of STORES) {
    for (const [key, what] of [
      ['HTTP.write', 'a step write'],
      ['HTTP.read', 'a current-state read'],
    ] as const) {
      const row = rewindRow(rows, key, store);
      if (!row && store === 'sqlite') continue;
      const p50 = row?.extra?.p50Ratio as number | undefined;
      const p99 = row?.extra?.p99Ratio as number | undefined;
      checks.push({
        target: `HTTP, client in its own process, ${name}: ${what} p50 ≤ 2× and p99 ≤ 1.5× the null server's (issue 17)`,
        measured:
          !row || p50 === undefined || p99 === undefined
            ? 'not measured'
            : `p50 ${fmtMs(row.latency!.p50)} vs ${fmtMs(row.extra!.nullP50 as number)} ms (${p50.toFixed(2)}×), p99 ${fmtMs(row.latency!.p99)} vs ${fmtMs(row.extra!.nullP99 as number)} ms (${p99.toFixed(2)}×)`,
        met: p50 === undefined || p99 === undefined ? null : p50 <= 2 && p99 <= 1.5,
        value: p50 ?? null,
      });
    }
    for (const [key, what] of [
      ['W2.http', 'the whole state'],
      ['W2.http.window', 'a window of the conversation (turns=last:20)'],
    ] as const) {
      const row = rewindRow(rows, key, store);
      if (!row && store === 'sqlite') continue;
      checks.push({
        target: `W2 over HTTP (10 001 events), ${name}, ${what}: p99 ≤ 10 ms (issue 17)`,
        measured: row
          ? `p99 ${fmtMs(row.latency!.p99)} ms (p50 ${fmtMs(row.latency!.p50)} ms), ${String(row.extra?.answerBytes ?? '?')} bytes per answer`
          : 'not measured',
        met: row ? row.latency!.p99 <= 10 : null,
        value: row?.latency?.p99 ?? null,
      });
    }
  }
  return checks;
}

/** Rewind beside the null server, per store: p50 / p99 and their ratios. */
export function httpPathTable(rows: Row[], table: (header: string[], body: string[][]) => string): string {
  const body: string[][] = [];
  for (const row of rows.filter((r) => r.system === 'rewind' && r.latency)) {
    const floor = rows.find((r) => r.system === 'http' && r.key === row.key && r.extra?.pairedWith === row.store);
    const durable = rows.find((r) => r.system === 'floor' && r.key === row.key && r.store === row.store && r.latency);
    const x = row.extra ?? {};
    body.push([
      row.label,
      row.store === 'postgres' ? 'PostgreSQL' : 'SQLite',
      `${fmtMs(row.latency!.p50)} / ${fmtMs(row.latency!.p99)}`,
      floor?.latency ? `${fmtMs(floor.latency.p50)} / ${fmtMs(floor.latency.p99)}` : '–',
      typeof x.p50Ratio === 'number' && typeof x.p99Ratio === 'number' ? `${x.p50Ratio.toFixed(2)}× / ${x.p99Ratio.toFixed(2)}×` : '–',
      durable?.latency && typeof x.p50FloorRatio === 'number' && typeof x.p99FloorRatio === 'number'
        ? `${fmtMs(durable.latency.p50)} / ${fmtMs(durable.latency.p99)} (${x.p50FloorRatio.toFixed(2)}× / ${x.p99FloorRatio.toFixed(2)}×)`
        : '–',
      String(x.answerBytes ?? '–'),
      [
        [x.apiCpuUsPerRequest, x.apiLoopCpuUsPerRequest],
        [floor?.extra?.apiCpuUsPerRequest, floor?.extra?.apiLoopCpuUsPerRequest],
        ...(durable ? [[durable.extra?.apiCpuUsPerRequest, durable.extra?.apiLoopCpuUsPerRequest]] : []),
      ]
        .map((pair) => pair.map((us) => (typeof us === 'number' ? Math.round(us).toLocaleString('en-US') : '–')).join(' / '))
        .join('; '),
      [...(row.notes ?? []), ...(floor?.notes ?? []), ...(durable?.notes ?? [])].join('; '),
    ]);
  }
  return table(
    [
      'What',
      'Store',
      'Rewind p50 / p99 ms',
      'null server p50 / p99 ms',
      'Rewind ÷ null (p50 / p99)',
      'durable floor p50 / p99 ms (Rewind ÷ floor)',
      'answer bytes',
      'API CPU µs per request, process / event loop (Rewind; null server; durable floor)',
      'How',
    ],
    body,
  );
}
