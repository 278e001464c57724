/** BENCHMARKS.md and the JSON of raw figures, from the rows the jobs reported. */
import type { MachineFacts } from './machine';
import { fmtBytes, fmtCount, fmtMs, storeLabel } from './recorder';
import type { Row, WorkloadId } from './results';
import type { Sizes } from './sizes';
import type { TargetCheck } from './target-check';
import { memoryTables, memoryTargets } from './memory-report';
import { langgraphSection, type LangGraphResults } from './langgraph-report';
import { httpPathTable, httpPathTargets } from './http-path-report';
import { issue26Targets, soakStatementsTable, soakTable } from './issue26-report';
import { issue40Targets } from './issue40-report';

export interface JobRun {
  job: string;
  durationMs: number;
  /** Machine CPU busy (0..1) from other work, sampled just before the job started. */
  backgroundBusy: number | null;
  error?: string;
}

export interface SuiteReport {
  title: string;
  mode: 'full' | 'quick' | 'partial' | 'profile';
  startedAt: string;
  durationMs: number;
  command: string;
  facts: MachineFacts;
  sizes: Sizes;
  jobs: JobRun[];
  rows: Row[];
  /** `npm run bench:langgraph`'s figures (its own section), when saved. */
  langgraph?: LangGraphResults | null;
  /** The missed targets explained (test/bench/analysis.md), when written. */
  analysis?: string | null;
  /** `npm run bench:locomo`'s section (test/bench/locomo-results.md), when written. */
  locomo?: string | null;
}

export type { TargetCheck } from './target-check';

const rewindRef = (rows: Row[], row: Row): Row | undefined =>
  rows.find((r) => r.system === 'rewind' && r.key === row.key && r.store === 'postgres' && r.path === row.path && !r.notMeasured);

/** A Rewind row that peers are compared against. */
const isReference = (rows: Row[], row: Row): boolean =>
  row.system === 'rewind' && row.store === 'postgres' && rows.some((r) => r.system !== 'rewind' && r.key === row.key && r.path === row.path);
const refCell = (rows: Row[], row: Row): string => (isReference(rows, row) ? '(reference)' : '');

const ratio = (peer: number | undefined, rewind: number | undefined): string => {
  if (peer === undefined || rewind === undefined || !Number.isFinite(peer) || !Number.isFinite(rewind) || rewind === 0) return '–';
  const r = peer / rewind;
  return `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`;
};

const systemName = (row: Row) =>
  ({ rewind: 'Rewind', emmett: 'Emmett', langgraph: 'LangGraph', postgres: 'PostgreSQL', sqlite: 'SQLite', http: 'HTTP', floor: 'durable floor' })[row.system];
const storeName = (row: Row) => storeLabel(row.store);
const pick = (rows: Row[], where: Partial<Pick<Row, 'system' | 'store' | 'key' | 'path'>>) =>
  rows.find((r) => (Object.keys(where) as (keyof typeof where)[]).every((k) => r[k] === where[k]) && !r.notMeasured);

export function table(header: string[], body: string[][]): string {
  const esc = (cell: string) => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...body.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

// ---- targets ---------------------------------------------------------------------------

export function checkTargets(rows: Row[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const latency = (target: string, row: Row | undefined, limit: number) => {
    const v = row?.latency?.p99;
    checks.push({
      target,
      measured: v === undefined ? 'not measured' : `p99 ${fmtMs(v)} ms (p50 ${fmtMs(row!.latency!.p50)} ms)`,
      met: v === undefined ? null : v <= limit,
      value: v ?? null,
    });
  };
  latency('W1 restore, PostgreSQL: p99 ≤ 1 ms', pick(rows, { system: 'rewind', store: 'postgres', key: 'W1.restore' }), 1);
  latency('W1 restore, embedded (SQLite): p99 ≤ 0.2 ms', pick(rows, { system: 'rewind', store: 'sqlite', key: 'W1.restore' }), 0.2);
  latency('W2 time travel (10 000 events), PostgreSQL: p99 ≤ 3 ms', pick(rows, { system: 'rewind', store: 'postgres', key: 'W2.timetravel' }), 3);
  latency('W2 time travel (10 000 events), SQLite: p99 ≤ 3 ms', pick(rows, { system: 'rewind', store: 'sqlite', key: 'W2.timetravel' }), 3);
  for (const store of ['postgres', 'sqlite'] as const) {
    const name = store === 'postgres' ? 'PostgreSQL' : 'SQLite';
    latency(`W3 append over HTTP, ${name}: p99 ≤ 5 ms (all turns)`, pick(rows, { system: 'rewind', store, key: 'W3.http.all' }), 5);
    const first = pick(rows, { system: 'rewind', store, key: 'W3.http.b0' });
    const last = pick(rows, { system: 'rewind', store, key: 'W3.http.b2' });
    if (first?.latency && last?.latency) {
      const growth = last.latency.p50 / first.latency.p50;
      checks.push({
        target: `W3 append over HTTP, ${name}: cost flat with session length (p50 of the last 20 turns ≤ 1.25× that of turns 1–20)`,
        measured: `p50 ${fmtMs(first.latency.p50)} → ${fmtMs(last.latency.p50)} ms (${growth.toFixed(2)}×); p99 ${fmtMs(first.latency.p99)} → ${fmtMs(last.latency.p99)} ms`,
        met: growth <= 1.25,
        value: growth,
      });
    } else checks.push({ target: `W3 append over HTTP, ${name}: flat with session length`, measured: 'not measured', met: null, value: null });
  }
  const ceiling16 = pick(rows, { key: 'DB.ceiling.16' });
  const httpCeiling = pick(rows, { key: 'DB.http' });
  for (const [key, unit] of [
    ['W4.http', '1 event per request'],
    ['W4.http.turn', 'a turn of 5 events per request'],
  ] as const) {
    const w4 = pick(rows, { system: 'rewind', store: 'postgres', key });
    checks.push({
      target: `W4 throughput through HTTP, 100 concurrent sessions, PostgreSQL, ${unit}: ≥ 10 000 events/s`,
      measured:
        w4?.throughput === undefined
          ? 'not measured'
          : `${fmtCount(w4.throughput)} events/s${w4Context(w4.throughput, ceiling16?.throughput, key === 'W4.http' ? httpCeiling?.throughput : undefined)}`,
      met: w4?.throughput === undefined ? null : w4.throughput >= 10_000,
      value: w4?.throughput ?? null,
    });
  }
  for (const store of ['postgres', 'sqlite'] as const) {
    const row = rows.find((r) => r.key === 'W5.rebuild' && r.store === store);
    checks.push({
      target: `W5 projection rebuild, ${store === 'postgres' ? 'PostgreSQL' : 'SQLite'}: ≥ 50 000 events/s`,
      measured: !row ? 'not measured' : row.notMeasured ? row.notMeasured : `${fmtCount(row.throughput!)} events/s`,
      met: !row || row.notMeasured ? null : row.throughput! >= 50_000,
      value: row?.throughput ?? null,
    });
  }
  latency(
    'W6 rollback over 10 effects (local HTTP compensators), PostgreSQL: p99 ≤ 100 ms',
    pick(rows, { system: 'rewind', store: 'postgres', key: 'W6.rollback' }),
    100,
  );
  latency(
    'W6 rollback over 10 effects (local HTTP compensators), SQLite: p99 ≤ 100 ms',
    pick(rows, { system: 'rewind', store: 'sqlite', key: 'W6.rollback' }),
    100,
  );
  // Issue 17: no more bytes than Emmett on the same events, both measures, both conversations.
  for (const key of ['W7.bytes', 'W7.rows', 'W7.bytes.orders', 'W7.rows.orders']) {
    const rewind = pick(rows, { system: 'rewind', store: 'postgres', key });
    const emmett = pick(rows, { system: 'emmett', store: 'postgres', key });
    const both = rewind?.bytesPerSession !== undefined && emmett?.bytesPerSession !== undefined;
    checks.push({
      target: `W7 ${storageMeasure(key)} per 20-turn session, PostgreSQL: Rewind ≤ Emmett`,
      measured: both ? `${fmtBytes(rewind.bytesPerSession!)} vs ${fmtBytes(emmett.bytesPerSession!)}` : 'not measured',
      met: both ? rewind.bytesPerSession! <= emmett.bytesPerSession! : null,
      value: rewind?.bytesPerSession ?? null,
    });
  }
  return checks;
}

// ---- sections ----------------------------------------------------------------------------

function latencyTable(rows: Row[]): string {
  return table(
    ['System', 'Store', 'Path', 'What', 'p50 ms', 'p95 ms', 'p99 ms', 'n', 'p50 vs Rewind', 'p99 vs Rewind', 'How'],
    rows.map((row) => {
      if (row.notMeasured) return [systemName(row), storeName(row), row.path, row.label, '–', '–', '–', '0', '–', '–', row.notMeasured];
      const ref = row.system === 'rewind' ? undefined : rewindRef(rows, row);
      const l = row.latency!;
      return [
        systemName(row),
        storeName(row),
        row.path,
        row.label,
        fmtMs(l.p50),
        fmtMs(l.p95),
        fmtMs(l.p99),
        String(l.n),
        ref ? ratio(l.p50, ref.latency?.p50) : row.system === 'rewind' ? refCell(rows, row) : '–',
        ref ? ratio(l.p99, ref.latency?.p99) : '',
        (row.notes ?? []).join('; '),
      ];
    }),
  );
}

function appendTable(rows: Row[]): string {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const prefix = row.key.replace(/\.(b\d|all)$/, '');
    const id = `${row.system}|${row.store}|${row.path}|${prefix}`;
    groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  const bucketLabels = rows.filter((r) => /\.b\d$/.test(r.key) && r.system === 'rewind').map((r) => r.label.split(', ').pop()!);
  const labels = [...new Set(bucketLabels)].slice(0, 3);
  const body: string[][] = [];
  for (const group of groups.values()) {
    const first = group[0]!;
    const cell = (suffix: string) => {
      const r = group.find((g) => g.key.endsWith(suffix));
      if (!r?.latency) return '–';
      const bucket = r.label.split(', ').pop()!;
      const index = Number(suffix.slice(2));
      const differs = suffix !== '.all' && labels[index] !== undefined && labels[index] !== bucket;
      return `${fmtMs(r.latency.p50)} / ${fmtMs(r.latency.p99)}${differs ? ` (${bucket})` : ''}`;
    };
    const all = group.find((g) => g.key.endsWith('.all'));
    const b0 = group.find((g) => g.key.endsWith('.b0'));
    const b2 = group.find((g) => g.key.endsWith('.b2'));
    const ref = first.system === 'rewind' ? undefined : rewindRef(rows, all ?? first);
    body.push([
      systemName(first),
      storeName(first),
      first.path,
      cell('.b0'),
      cell('.b1'),
      cell('.b2'),
      cell('.all'),
      b0?.latency && b2?.latency ? `${(b2.latency.p50 / b0.latency.p50).toFixed(2)}×` : '–',
      ref
        ? `${ratio(all?.latency?.p50, ref.latency?.p50)} / ${ratio(all?.latency?.p99, ref.latency?.p99)}`
        : first.system === 'rewind'
          ? refCell(rows, all ?? first)
          : '–',
      (first.notes ?? []).join('; '),
    ]);
  }
  return table(
    [
      'System',
      'Store',
      'Path',
      `${labels[0] ?? 'first 20 turns'} p50 / p99 ms`,
      `${labels[1] ?? 'middle'} p50 / p99 ms`,
      `${labels[2] ?? 'last 20 turns'} p50 / p99 ms`,
      'all p50 / p99 ms',
      'last ÷ first p50',
      'all vs Rewind (p50 / p99)',
      'How',
    ],
    body,
  );
}

/** W4 as a share of the two physical references measured in the same run. */
function w4Context(eventsPerSecond: number, insertCeiling?: number, httpCeiling?: number): string {
  const parts: string[] = [];
  if (insertCeiling)
    parts.push(`${((eventsPerSecond / insertCeiling) * 100).toFixed(0)} % of this machine's 16-connection INSERT ceiling, ${fmtCount(insertCeiling)}/s`);
  if (httpCeiling) parts.push(`${((eventsPerSecond / httpCeiling) * 100).toFixed(0)} % of a null HTTP server's ${fmtCount(httpCeiling)} requests/s`);
  return parts.length ? ` (${parts.join('; ')})` : '';
}

function throughputTable(rows: Row[], all: Row[]): string {
  const c1 = pick(all, { key: 'DB.ceiling.1' })?.throughput;
  const c16 = pick(all, { key: 'DB.ceiling.16' })?.throughput;
  const sqlite = pick(all, { key: 'DB.ceiling.sqlite' })?.throughput;
  return table(
    [
      'System',
      'Store',
      'Path',
      'events/s',
      'p50 ms',
      'p99 ms',
      'of the DB ceiling (1 conn / 16 conn)',
      'machine CPU busy',
      'API CPU µs per request (process / event loop)',
      'vs Rewind',
      'How',
    ],
    rows.map((row) => {
      const ref = row.system === 'rewind' ? undefined : rewindRef(all, row);
      const t = row.throughput!;
      const share =
        row.store === 'none'
          ? `null server, beside Rewind on ${storeLabel((row.extra?.pairedWith as 'sqlite' | 'postgres' | undefined) ?? 'none')}`
          : row.system === 'floor'
            ? `durable floor, beside Rewind on ${storeLabel(row.store)}`
            : row.store === 'sqlite'
              ? sqlite
                ? `${((t / sqlite) * 100).toFixed(0)} % of SQLite's ${fmtCount(sqlite)}/s`
                : '–'
              : c1 && c16
                ? `${((t / c1) * 100).toFixed(0)} % / ${((t / c16) * 100).toFixed(0)} %`
                : '–';
      const busy = row.extra?.machineCpuBusy as number | null | undefined;
      const us = (v: unknown) => (typeof v === 'number' ? fmtCount(v) : '–');
      return [
        systemName(row),
        storeName(row),
        row.path,
        fmtCount(t),
        row.latency ? fmtMs(row.latency.p50) : '–',
        row.latency ? fmtMs(row.latency.p99) : '–',
        share,
        busy === null || busy === undefined ? '–' : `${Math.round(busy * 100)} %`,
        // Load-independent: the server's CPU time over the measured phase ÷ requests: the whole process (worker threads too) / its event loop thread.
        row.extra?.apiCpuUsPerRequest === undefined
          ? '–'
          : `${us(row.extra.apiCpuUsPerRequest)} / ${us(row.extra.apiLoopCpuUsPerRequest)}${row.extra.profiled ? ' (profiled)' : ''}`,
        ref ? ratio(t, ref.throughput) : row.system === 'rewind' ? refCell(all, row) : '–',
        (row.notes ?? []).join('; '),
      ];
    }),
  );
}

/** W7's keys: `W7.<bytes|rows>[.<conversation>]`. */
function storageMeasure(key: string): string {
  const [, measure, conversation, path] = key.split('.');
  const what = measure === 'rows' ? 'bytes of rows' : measure === 'seals' ? 'bytes of audit seals' : 'bytes on disk';
  return `${what}, ${conversation ?? 'hotels'} conversation${path === 'http' ? ', written over HTTP (default configuration)' : ''}`;
}

function storageTable(rows: Row[]): string {
  const byMeasure = [...rows].sort((a, b) => a.key.localeCompare(b.key));
  return table(
    ['Measure', 'System', 'Store', 'bytes per 20-turn session', 'split (bytes per session)', 'vs Rewind', 'How'],
    byMeasure.map((row) => {
      const ref = row.system === 'rewind' ? undefined : rewindRef(rows, row);
      const split = Object.entries(row.bytesBreakdown ?? {})
        .filter(([, b]) => b !== 0)
        .map(([name, b]) => `${name} ${fmtBytes(b)}`)
        .join(', ');
      return [
        storageMeasure(row.key),
        systemName(row),
        storeName(row),
        fmtBytes(row.bytesPerSession!),
        split,
        ref ? ratio(row.bytesPerSession, ref.bytesPerSession) : row.system === 'rewind' ? refCell(rows, row) : '–',
        String(row.extra?.description ?? ''),
      ];
    }),
  );
}

const WORKLOAD_TITLES: Record<WorkloadId, string> = {
  W1: 'W1 — restore the current state of a 20-turn session (101 events), no cache',
  W2: 'W2 — time travel: state at a random past version of a 10 000-event session',
  W3: 'W3 — append latency, one step per write, by position in a 300-turn session',
  W4: 'W4 — throughput with 100 concurrent sessions',
  W5: 'W5 — projection rebuild',
  W6: 'W6 — rollback over 10 effectful calls with local HTTP compensators',
  W7: 'W7 — bytes per 20-turn session (on disk and by row size; two conversations)',
  HTTP: 'HTTP — the agent’s view: client in its own process, one request at a time, Rewind beside a null Fastify server',
  DB: 'The physical reference: the database’s own commit ceiling, and a null HTTP server, on this machine',
  MEM: 'MEM — long-term memory: recall quality, indexing, search, index lag (embedded: sqlite-vec + FTS5, local model)',
  SOAK: 'SOAK — ten minutes of concurrent writers over HTTP, default configuration (`--soak`)',
};

export const FAIRNESS_NOTES = [
  'All PostgreSQL systems run against the same server in the same run, each in a fresh database and in its own process, with the server’s durability settings as shown above (every append, put or INSERT is its own synchronously committed transaction; nobody relaxes `synchronous_commit`). Rewind’s embedded store uses SQLite WAL with `synchronous=FULL` (an acknowledged append survives power loss).',
  'Emmett stores the very events Rewind records (same type and data; the metadata in the same compact encoding Rewind’s stores use; Rewind’s event id as its message id) and folds them with Rewind’s own `evolveInPlace` in `aggregateStream`. Emmett has no snapshots, so W1/W2 replay every event up to the version asked: that is the design difference being measured.',
  'W3 library: Rewind’s figure is a whole `SessionService.execute` (state from its cache, decide, append, fold, a snapshot every 100 events); Emmett’s is a bare `appendToStream` of a pre-built event with its expected version; LangGraph’s is one `put`. Both peers do less work per step than Rewind here.',
  'LangGraph is given only one `put` per step (a real graph also calls `putWrites` per task and writes several channels per super-step), and its W2 thread has 1 500 checkpoints (300 turns) rather than 10 000 (with the full message list per checkpoint that would be gigabytes): both in LangGraph’s favour.',
  'W4 over HTTP: Emmett runs as its documentation writes a command, `CommandHandler` behind Fastify (it reads the session’s stream, folds its version and open turn, and appends the same events Rewind records, a step or a whole turn per request), and, as a lighter row, behind a minimal `node:http` server that appends with the version kept in memory and reads nothing; both without DTO validation, with an in-memory API-key compare (Rewind hashes the key and checks it against a 30 s cache of its store) and no idempotency handling: in Emmett’s favour. The durable floor rows (Fastify and one INSERT of the body on the same store, nothing decided or validated) bound what any durable API can answer here. The load generator is a second Node process (node:http keep-alive agent) sharing the machine’s cores with the server and PostgreSQL, for every system alike; the null HTTP server row shows what that HTTP traffic alone costs here.',
  'W4 batching: Rewind’s PostgreSQL store commits appends that arrive while others are in flight in one transaction (group commit): every acknowledged append is still committed with `synchronous_commit` on before it is answered. The “turn per request” rows send a whole turn (5 steps) to `POST /v1/sessions/:id/steps`, one atomic write; Emmett’s CommandHandler peer and the durable floor take the same request (the null server and the floor parse it, the floor stores it in one INSERT), the node:http Emmett peer a step per request only.',
  'Rewind’s API runs its six projections in the same process during every HTTP workload (they are part of what `npm start` runs). Their batches commit without waiting for the disk (read models are derived from the fsynced log and re-applied from it with their checkpoint after a crash); the events themselves are always fsynced.',
  'Pools: Rewind 20 connections (API default), Emmett 20 (a `pg.Pool` passed as `connectionOptions.pool`), LangGraph 10 (`fromConnString` default; its workloads are serial).',
  'Emmett and LangGraph store JSON as `jsonb` (parsed on write, larger on disk for small documents); Rewind stores `json` (text).',
  'The machine is a small VM: its fsync latency varies from run to run (see the DB ceiling rows, measured in the same run) and anything else running on its 2 cores shows in the tails. The “other CPU load” column under “Run” says how quiet it was before each job.',
];

export function renderMarkdown(report: SuiteReport): string {
  const { facts, rows } = report;
  const lines: string[] = [];
  lines.push(`# ${report.title}`, '');
  lines.push(
    `Generated by \`${report.command}\` on ${facts.date.slice(0, 10)} (${report.mode} run, ${(report.durationMs / 60000).toFixed(1)} min). ` +
      `Raw figures (every summary and a log-linear latency histogram per row): \`.bench/bench-results${report.mode === 'full' ? '' : `.${report.mode}`}.json\`. ` +
      'Latencies are per operation as the caller sees it, in milliseconds; percentiles are exact (nearest rank over all samples) after a warm-up. No timing is asserted anywhere: these are measurements, not tests.',
    '',
  );
  lines.push('## Machine', '');
  const pg = facts.postgres;
  lines.push(
    table(
      ['', ''],
      [
        ['Date', facts.date],
        ['CPUs (`nproc`)', String(facts.nproc)],
        ['CPU model', facts.cpuModel],
        ['Memory', facts.memoryBytes ? `${(facts.memoryBytes / 1024 ** 3).toFixed(1)} GiB` : 'unknown'],
        ['OS', facts.os],
        ['Node', facts.node],
        ['PostgreSQL', pg ? pg.version : `unreachable: ${facts.postgresError ?? ''}`],
        [
          'PostgreSQL durability',
          pg
            ? `fsync=${pg.settings.fsync}, synchronous_commit=${pg.settings.synchronous_commit}, wal_sync_method=${pg.settings.wal_sync_method}, full_page_writes=${pg.settings.full_page_writes}, commit_delay=${pg.settings.commit_delay}`
            : '–',
        ],
        [
          'PostgreSQL other',
          pg ? `shared_buffers=${pg.settings.shared_buffers}, max_connections=${pg.settings.max_connections}, wal_level=${pg.settings.wal_level}` : '–',
        ],
        ['SQLite', `${facts.sqlite} (better-sqlite3 ${facts.packages['better-sqlite3']}), WAL, synchronous=FULL`],
        [
          'Peers',
          `@event-driven-io/emmett-postgresql ${facts.packages['@event-driven-io/emmett-postgresql']}, @langchain/langgraph-checkpoint-postgres ${facts.packages['@langchain/langgraph-checkpoint-postgres']} (@langchain/core ${facts.packages['@langchain/core']}), pg ${facts.packages.pg}`,
        ],
        ['Rewind', `git ${facts.git ?? 'unknown'}`],
        ['Load average at start', facts.loadAverage.map((l) => l.toFixed(2)).join(', ')],
      ],
    ),
    '',
  );
  const busy = report.jobs.map((j) => j.backgroundBusy).filter((b): b is number => b !== null);
  if (busy.some((b) => b > 0.25)) {
    lines.push(
      `> The machine was not idle: other work used up to ${Math.round(Math.max(...busy) * 100)} % of its CPU just before some jobs (see “Run”). On 2 cores that shows in tail latencies and throughput; rerun on a quiet machine for the cleanest figures.`,
      '',
    );
  }

  lines.push('## Targets (DESIGN.md)', '');
  lines.push(
    table(
      ['Target', 'Measured', 'Met'],
      [...checkTargets(rows), ...httpPathTargets(rows), ...issue26Targets(rows), ...issue40Targets(rows), ...memoryTargets(rows)].map((c) => [
        c.target,
        c.measured,
        c.met === null ? '–' : c.met ? 'yes' : '**no**',
      ]),
    ),
    '',
  );

  const workloads: WorkloadId[] = ['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'W7', 'HTTP', 'DB', 'MEM', 'SOAK'];
  lines.push('## Results', '');
  lines.push(
    'Ratios are the peer’s figure divided by Rewind’s on PostgreSQL in the same run (latency and bytes: above 1× means Rewind is better; throughput: below 1× means Rewind is better).',
    '',
  );
  for (const w of workloads) {
    const wrows = rows.filter((r) => r.workload === w);
    if (w === 'SOAK' && wrows.length === 0) continue;
    lines.push(`### ${WORKLOAD_TITLES[w]}`, '');
    if (wrows.length === 0) {
      lines.push(w === 'W5' ? 'W5: not measured yet (projections not built).' : 'Not measured in this run.', '');
      continue;
    }
    if (w === 'MEM') lines.push(memoryTables(wrows, table), '');
    else if (w === 'SOAK') {
      lines.push(soakTable(wrows, table), '');
      const statements = soakStatementsTable(wrows, table);
      if (statements) lines.push(statements, '');
    } else if (w === 'HTTP') lines.push(httpPathTable(wrows, table), '');
    else if (w === 'W3') lines.push(appendTable(wrows), '');
    else if (w === 'W4') lines.push(throughputTable(wrows, rows), '');
    else if (w === 'W7') lines.push(storageTable(wrows), '');
    else if (w === 'DB' || w === 'W5') {
      lines.push(
        table(
          ['What', 'Store', w === 'DB' ? 'per second' : 'events/s', 'How'],
          wrows.map((r) => [r.label, storeName(r), r.notMeasured ? r.notMeasured : fmtCount(r.throughput!), (r.notes ?? []).join('; ')]),
        ),
        '',
      );
    } else lines.push(latencyTable(wrows), '');
    if (w === 'W2') {
      const long = wrows.find((r) => r.system === 'rewind' && r.store === 'postgres')?.extra?.longSessionBytes as Record<string, number> | undefined;
      if (long) {
        lines.push(
          `Storage of Rewind’s 10 001-event session on PostgreSQL: ${Object.entries(long)
            .filter(([, b]) => b > 0)
            .map(([t, b]) => `${t} ${fmtBytes(b)}`)
            .join(', ')} (a full-state snapshot every 100 events).`,
          '',
        );
      }
    }
  }

  lines.push('## Fairness notes', '');
  for (const note of FAIRNESS_NOTES) lines.push(`- ${note}`);
  lines.push('');

  lines.push('## Run', '');
  const s = report.sizes;
  lines.push(
    `Sizes: W1/W7 ${s.storageSessions} sessions, ${s.restoreRuns} restores (+${s.restoreWarmup} warm-up); W2 ${s.longTurns} turns, ${s.timeTravelRuns} samples (${s.timeTravelReplayRuns} for full replays); ` +
      `W3 ${s.appendSessions} library / ${s.httpAppendSessions} HTTP sessions of ${s.appendTurns} turns; W4 ${s.concurrentSessions} sessions × ${s.throughputSteps} measured steps (+${s.throughputWarmup} warm-up); ` +
      `W5 ${s.rebuildSessions} sessions; W6 ${s.rollbackRuns} rollbacks (+3 warm-up); DB ceiling ${s.ceilingSeconds} s per configuration.`,
    '',
  );
  lines.push(
    table(
      ['Job', 'Duration', 'Other CPU load just before', 'Outcome'],
      report.jobs.map((j) => [
        j.job,
        `${(j.durationMs / 1000).toFixed(1)} s`,
        j.backgroundBusy === null ? '–' : `${Math.round(j.backgroundBusy * 100)} %`,
        j.error ? `failed: ${j.error.split('\n')[0]}` : 'ok',
      ]),
    ),
    '',
  );
  if (report.langgraph) lines.push(langgraphSection(report.langgraph, table), '');
  if (report.locomo) lines.push(report.locomo, '');
  if (report.analysis) lines.push(report.analysis, '');
  return lines.join('\n');
}

/** A compact console view of the same figures. */
export function renderConsole(report: SuiteReport): string {
  const out: string[] = [];
  for (const row of report.rows) {
    const head = `${row.workload} ${systemName(row).padEnd(9)} ${storeName(row).padEnd(10)} ${row.path.padEnd(7)} ${row.label}`;
    if (row.notMeasured) out.push(`${head}: ${row.notMeasured}`);
    else if (row.throughput !== undefined) out.push(`${head}: ${fmtCount(row.throughput)}/s${row.latency ? ` (p99 ${fmtMs(row.latency.p99)} ms)` : ''}`);
    else if (row.bytesPerSession !== undefined) out.push(`${head}: ${fmtBytes(row.bytesPerSession)}`);
    else if (row.latency)
      out.push(`${head}: p50 ${fmtMs(row.latency.p50)} ms  p95 ${fmtMs(row.latency.p95)} ms  p99 ${fmtMs(row.latency.p99)} ms  (n=${row.latency.n})`);
  }
  out.push('', 'Targets:');
  for (const c of [...checkTargets(report.rows), ...httpPathTargets(report.rows), ...issue26Targets(report.rows), ...issue40Targets(report.rows)])
    out.push(`  [${c.met === null ? ' - ' : c.met ? 'met' : 'MISS'}] ${c.target}: ${c.measured}`);
  return out.join('\n');
}
