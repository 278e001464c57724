/**
 * Issue 26's targets (the HTTP path near the floor under load, fewer bytes than Emmett, the soak),
 * all as ratios measured in the same run, and the soak's table (kept apart from report.ts).
 */
import { fmtBytes, fmtCount, fmtMs } from './recorder';
import type { Row } from './results';
import { STORES, type TargetCheck } from './target-check';

const find = (rows: Row[], where: Partial<Pick<Row, 'system' | 'store' | 'key' | 'path'>>) =>
  rows.find((r) => (Object.keys(where) as (keyof typeof where)[]).every((k) => r[k] === where[k]) && !r.notMeasured);
const notMeasured = (target: string): TargetCheck => ({ target, measured: 'not measured', met: null, value: null });

export function issue26Targets(rows: Row[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const [store, name] of STORES) {
    // Concurrent writers over HTTP against the null server under the same load client, same job.
    for (const [key, nullKey, unit] of [
      ['W4.http.turn', 'W4.null.turn', 'a turn per request'],
      ['W4.http', 'W4.null', 'a step per request'],
    ] as const) {
      const target = `W4 over HTTP, ${name}, ${unit}: ≥ 60 % of the null server's requests/s and p99 ≤ 2× its p99, same client (issue 26)`;
      const rewind = find(rows, { system: 'rewind', store, key });
      const floor = rows.find((r) => r.system === 'http' && r.key === nullKey && r.extra?.pairedWith === store);
      const rps = rewind?.extra?.requestsPerSecond as number | undefined;
      const nullRps = floor?.extra?.requestsPerSecond as number | undefined;
      if (!rewind?.latency || !floor?.latency || !rps || !nullRps) {
        checks.push(notMeasured(target));
        continue;
      }
      const share = rps / nullRps;
      const p99 = rewind.latency.p99 / floor.latency.p99;
      checks.push({
        target,
        measured: `${fmtCount(rps)} vs ${fmtCount(nullRps)} requests/s (${(share * 100).toFixed(0)} %); p99 ${fmtMs(rewind.latency.p99)} vs ${fmtMs(floor.latency.p99)} ms (${p99.toFixed(2)}×)`,
        met: share >= 0.6 && p99 <= 2,
        value: share,
      });
    }
    // One message over HTTP, client in its own process, against the null server's POST.
    {
      const target = `One message over HTTP, ${name}: p50 ≤ 1.3× and p99 ≤ 1.5× the null server's POST (issue 26)`;
      const row = find(rows, { system: 'rewind', store, key: 'HTTP.message' });
      const p50 = row?.extra?.p50Ratio as number | undefined;
      const p99 = row?.extra?.p99Ratio as number | undefined;
      checks.push(
        !row || p50 === undefined || p99 === undefined
          ? notMeasured(target)
          : {
              target,
              measured: `p50 ${fmtMs(row.latency!.p50)} vs ${fmtMs(row.extra!.nullP50 as number)} ms (${p50.toFixed(2)}×), p99 ${fmtMs(row.latency!.p99)} vs ${fmtMs(row.extra!.nullP99 as number)} ms (${p99.toFixed(2)}×)`,
              met: p50 <= 1.3 && p99 <= 1.5,
              value: p50,
            },
      );
    }
    // Early turns no slower than late ones (W3 over HTTP runs the API's defaults: memory on).
    {
      const target = `W3 over HTTP, ${name}, default configuration (memory on): turns 1–20 p50 ≤ 1.1× the last 20 turns' (issue 26)`;
      const first = find(rows, { system: 'rewind', store, key: 'W3.http.b0' });
      const last = find(rows, { system: 'rewind', store, key: 'W3.http.b2' });
      checks.push(
        !first?.latency || !last?.latency
          ? notMeasured(target)
          : {
              target,
              measured: `p50 ${fmtMs(first.latency.p50)} (turns 1–20) vs ${fmtMs(last.latency.p50)} ms (last 20): ${(first.latency.p50 / last.latency.p50).toFixed(2)}×`,
              met: first.latency.p50 <= 1.1 * last.latency.p50,
              value: first.latency.p50 / last.latency.p50,
            },
      );
    }
  }
  // Bytes over HTTP with the default configuration against Emmett's rows of the same conversation.
  for (const [conversation, emmettKey] of [
    ['hotels', 'W7.rows'],
    ['orders', 'W7.rows.orders'],
  ] as const) {
    const target = `W7 over HTTP (default configuration), ${conversation} conversation, PostgreSQL: Rewind's events + snapshots ≤ Emmett's rows (issue 26)`;
    const rewind = find(rows, { system: 'rewind', store: 'postgres', key: `W7.rows.${conversation}.http` });
    const emmett = find(rows, { system: 'emmett', store: 'postgres', key: emmettKey });
    checks.push(
      rewind?.bytesPerSession === undefined || emmett?.bytesPerSession === undefined
        ? notMeasured(target)
        : {
            target,
            measured: `${fmtBytes(rewind.bytesPerSession)} vs ${fmtBytes(emmett.bytesPerSession)} per 20-turn session`,
            met: rewind.bytesPerSession <= emmett.bytesPerSession,
            value: rewind.bytesPerSession,
          },
    );
  }
  {
    const sealTarget = 'Audit seals, PostgreSQL: ≤ 40 bytes per event (issue 26)';
    const perEvent = rows
      .filter((r) => r.system === 'rewind' && r.key.startsWith('W7.seals.') && typeof r.extra?.sealBytesPerEvent === 'number')
      .map((r) => r.extra!.sealBytesPerEvent as number);
    checks.push(
      perEvent.length === 0
        ? notMeasured(sealTarget)
        : {
            target: sealTarget,
            measured: `${Math.max(...perEvent).toFixed(1)} bytes per event (the larger of the two conversations)`,
            met: Math.max(...perEvent) <= 40,
            value: Math.max(...perEvent),
          },
    );
  }
  // The library path against Emmett's on concurrent writers.
  {
    const target = "W4 through the library, PostgreSQL: Rewind's events/s above Emmett's (issue 26)";
    const rewind = find(rows, { system: 'rewind', store: 'postgres', key: 'W4.library' });
    const emmett = find(rows, { system: 'emmett', store: 'postgres', key: 'W4.library' });
    checks.push(
      rewind?.throughput === undefined || emmett?.throughput === undefined
        ? notMeasured(target)
        : {
            target,
            measured: `${fmtCount(rewind.throughput)} vs ${fmtCount(emmett.throughput)} events/s (${(rewind.throughput / emmett.throughput).toFixed(2)}×)`,
            met: rewind.throughput > emmett.throughput,
            value: rewind.throughput / emmett.throughput,
          },
    );
  }
  // The soak: only when it ran (`--soak`).
  for (const [store, name] of STORES) {
    const soak = find(rows, { system: 'rewind', store, key: 'SOAK.http.turn' });
    if (!soak) continue;
    const x = soak.extra ?? {};
    const ratio = x.throughputLastVsSecond as number | null;
    checks.push({
      target: `Soak, ${name}: throughput in the last minute within 10 % of the second minute's (issue 26)`,
      measured: ratio === null ? 'too short' : `${(ratio * 100).toFixed(0)} % of minute 2 (minute ${String(x.lastMinuteIndex)})`,
      met: ratio === null ? null : ratio >= 0.9,
      value: ratio,
    });
    const growth = x.rssGrowth as number | null;
    checks.push({
      target: `Soak, ${name}: RSS growth ≤ 10 % from minute 2 to the last (issue 26)`,
      measured:
        growth === null
          ? 'too short'
          : `${fmtBytes(x.rssSecondMinute as number)} → ${fmtBytes(x.rssLastMinute as number)} (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(0)} %)`,
      met: growth === null ? null : growth <= 0.1,
      value: growth,
    });
    // Bounded: in the last minute the keyword lag stays within 5 s of that minute's writes (a turn is 5 events), however long the load ran.
    const minutes = (x.minutes ?? []) as { requestsPerSecond: number; lagMax: number }[];
    const last = minutes[(x.lastMinuteIndex as number) - 1];
    checks.push(
      !last
        ? notMeasured(`Soak, ${name}: memory index lag (events not yet searchable) bounded (issue 26)`)
        : {
            target: `Soak, ${name}: memory index lag (events not yet searchable) within 5 s of writes in the last minute, i.e. bounded (issue 26)`,
            measured: `${fmtCount(last.lagMax)} events at most (5 s = ${fmtCount(last.requestsPerSecond * 25)}); vectors: ${fmtCount((x.pendingVectorsMax as number | null) ?? 0)} items behind at most, caught up ${
              x.vectorCatchUpAfterLoadMs == null
                ? `not within ${(x.catchUpMinutes as number | undefined) ?? 10} min`
                : `${((x.vectorCatchUpAfterLoadMs as number) / 1000).toFixed(0)} s`
            } after the load`,
            met: last.lagMax <= last.requestsPerSecond * 25,
            value: last.lagMax,
          },
    );
  }
  return checks;
}

/** The soak's minutes, per store: requests/s, latency, where the CPU went, GC, the API's memory and the memory index's lag. */
export function soakTable(rows: Row[], table: (header: string[], body: string[][]) => string): string {
  const body: string[][] = [];
  const ms = (v: number | null | undefined) => (v == null ? '–' : v.toFixed(2));
  const pct = (v: number | null | undefined) => (v == null ? '–' : `${Math.round(v * 100)} %`);
  // Soaks before the probes (session 10 and earlier) have none of the CPU, GC or cache columns: dashes.
  let probed = false;
  for (const row of rows.filter((r) => r.key === 'SOAK.http.turn')) {
    const x = row.extra ?? {};
    const minutes = (x.minutes ?? []) as SoakMinute[];
    const storeName = row.store === 'postgres' ? 'PostgreSQL' : 'SQLite';
    for (const m of minutes) {
      probed ||= m.otherThreadsCpuMsPerRequest !== undefined;
      const cpu = [m.loopCpuMsPerRequest, m.otherThreadsCpuMsPerRequest, m.postgresCpuMsPerRequest, m.clientCpuMsPerRequest];
      body.push([
        storeName,
        String(m.minute),
        fmtCount(m.requestsPerSecond),
        `${fmtMs(m.p50)} / ${fmtMs(m.p99)}`,
        m.otherThreadsCpuMsPerRequest === undefined ? ms(m.loopCpuMsPerRequest) : cpu.map(ms).join(' / '),
        pct(m.machineBusy),
        m.gcShare == null ? '–' : `${pct(m.gcShare)} (${pct(m.gcMajorShare)})`,
        [m.rssMaxBytes, m.heapUsedMaxBytes, m.liveHeapAfterMajorGcBytes].map((b) => (b == null ? '–' : fmtBytes(b))).join(' / '),
        m.stateCacheEvents == null ? '–' : `${fmtCount(m.stateCacheEvents)} (${m.stateCacheSessions ?? '–'})`,
        m.dataBytes == null ? '–' : fmtBytes(m.dataBytes),
        fmtCount(m.lagMax),
        m.pendingVectorsMax === undefined ? '–' : fmtCount(m.pendingVectorsMax),
      ]);
    }
    const catchUp = x.catchUpAfterLoadMs as number | null;
    // A soak before two-stage indexing had one lag and one catch-up (its vectors were its keywords).
    const vectorCatchUp = ('vectorCatchUpAfterLoadMs' in x ? x.vectorCatchUpAfterLoadMs : x.catchUpAfterLoadMs) as number | null;
    const inSeconds = (ms: number | null) => (ms === null ? '(not within the wait)' : `${(ms / 1000).toFixed(1)} s`);
    body.push([
      storeName,
      'after the load',
      ...Array<string>(8).fill('–'),
      `lag ${String(x.indexLagAtEnd ?? '–')} at the end; caught up in ${inSeconds(catchUp)}`,
      x.pendingVectorsAtEnd === undefined ? '–' : `${String(x.pendingVectorsAtEnd ?? '–')} at the end; caught up in ${inSeconds(vectorCatchUp)}`,
    ]);
  }
  return table(
    [
      'Store',
      'Minute',
      'requests/s (a turn each)',
      'p50 / p99 ms',
      probed ? 'CPU ms per request: API event loop / API other threads / PostgreSQL / load client' : 'event-loop CPU ms per request',
      'machine busy',
      'GC pauses, share of the minute (full GCs)',
      'API RSS / heap used (max) / live heap (after the last full GC)',
      'state cache: events (sessions)',
      'data files (SQLite)',
      'memory index lag: events not yet searchable (max)',
      'items not yet embedded (max)',
    ],
    body,
  );
}

/**
 * PostgreSQL's statements in the soak (pg_stat_statements, when the server preloads it): the
 * costliest, in minute 2 and in the last minute, per request and per call. Execution time counts
 * waiting for a busy CPU; blocks per call is the work itself. Empty when no soak recorded them.
 */
export function soakStatementsTable(rows: Row[], table: (header: string[], body: string[][]) => string): string {
  const row = rows.find((r) => r.key === 'SOAK.http.turn' && r.store === 'postgres');
  const minutes = ((row?.extra?.minutes ?? []) as SoakMinute[]).filter((m) => m.statements);
  if (minutes.length < 2) return '';
  const [second, last] = [minutes.find((m) => m.minute === 2) ?? minutes[0]!, minutes[minutes.length - 1]!];
  const queries = [...new Set([...second.statements!, ...last.statements!].map((s) => s.query))];
  const cell = (m: SoakMinute, query: string) => {
    const s = m.statements!.find((x) => x.query === query);
    return s ? `${s.execMsPerRequest.toFixed(3)} / ${s.callsPerRequest.toFixed(2)} / ${s.rowsPerCall.toFixed(1)} / ${s.blocksPerCall.toFixed(1)}` : '–';
  };
  const body = queries.map((q) => ['`' + q.replace(/\|/g, '\\|').slice(0, 80) + '`', cell(second, q), cell(last, q)]);
  const title = (m: SoakMinute) => `minute ${m.minute}: exec ms per request / calls per request / rows per call / blocks per call`;
  return table(['PostgreSQL statement (pg_stat_statements)', title(second), title(last)], body);
}

/** One minute of the soak as workloads/soak.ts records it (the fields after dataBytes are absent in older soaks). */
interface SoakMinute {
  minute: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  rssMaxBytes: number | null;
  lagMax: number;
  pendingVectorsMax?: number;
  loopCpuMsPerRequest?: number | null;
  dataBytes?: number | null;
  otherThreadsCpuMsPerRequest?: number | null;
  postgresCpuMsPerRequest?: number | null;
  clientCpuMsPerRequest?: number | null;
  machineBusy?: number | null;
  gcShare?: number | null;
  gcMajorShare?: number | null;
  heapUsedMaxBytes?: number | null;
  liveHeapAfterMajorGcBytes?: number | null;
  stateCacheEvents?: number | null;
  stateCacheSessions?: number | null;
  statements?: { query: string; callsPerRequest: number; execMsPerRequest: number; execMsPerCall: number; rowsPerCall: number; blocksPerCall: number }[] | null;
}
