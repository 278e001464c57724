/**
 * What the soak samples besides requests (issue 26: why the cost per request and RSS grow):
 * CPU time of each party that shares the machine (the API's event loop and its other threads,
 * the PostgreSQL server's processes, the load client), the machine's busy share, the API's GC
 * pauses and heap. All cumulative counters: the soak takes differences between its samples.
 * CPU times, not wall-clock, so that other work on a shared machine does not pass for ours.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { Client } from 'pg';

/** Linux's clock ticks per second for /proc/<pid>/stat (`getconf CLK_TCK`: 100 on every common kernel). */
const TICK_US = 10_000;

/** utime + stime of a process (all its threads) in µs, from /proc; null when it is gone or there is no /proc. */
export function processCpuUs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: the fields after it are counted from its ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return null;
  }
}

/** The PIDs of every process named `postgres` on the machine (the server's backends and its background processes). */
export function postgresPids(): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {
      // gone between the listing and the read
    }
  }
  return pids;
}

/**
 * Sums the CPU time of a changing set of processes (PostgreSQL's backends come and go): the
 * counter only grows, by each known process's growth, plus the whole time of a process seen for
 * the first time (it started since the last reading, near enough for a pool's connections).
 */
export class ProcessSetCpu {
  private readonly last = new Map<number, number>();
  private total = 0;

  read(pids: number[]): number {
    const seen = new Set<number>();
    for (const pid of pids) {
      const cpu = processCpuUs(pid);
      if (cpu === null) continue;
      seen.add(pid);
      this.total += cpu - (this.last.get(pid) ?? 0);
      this.last.set(pid, cpu);
    }
    for (const pid of [...this.last.keys()]) if (!seen.has(pid)) this.last.delete(pid);
    return this.total;
  }
}

/**
 * The PostgreSQL server's processes that work for the bench's database: its connections, and the
 * server's shared background processes (WAL writer, checkpointer, …: they serve every database, so
 * another client of the server counts here too). The machine's `postgres` processes as a whole
 * are counted apart.
 */
export class PostgresCpu {
  private readonly ours = new ProcessSetCpu();
  private readonly background = new ProcessSetCpu();
  private readonly all = new ProcessSetCpu();
  private client: Client | null = null;

  constructor(private readonly databaseUrl: string) {}

  /** `ours`: connections and background processes; `background`: the latter alone (shared with other databases). */
  async read(): Promise<{ ours: number | null; background: number | null; all: number }> {
    const all = this.all.read(postgresPids());
    try {
      if (!this.client) {
        const client = new Client({ connectionString: this.databaseUrl });
        await client.connect();
        this.client = client;
      }
      const { rows } = await this.client.query<{ pid: number; background: boolean }>(
        'SELECT pid, datname IS NULL AS background FROM pg_stat_activity WHERE datname = current_database() OR datname IS NULL',
      );
      const background = this.background.read(rows.filter((r) => r.background).map((r) => Number(r.pid)));
      return { ours: this.ours.read(rows.map((r) => Number(r.pid))), background, all };
    } catch {
      return { ours: null, background: null, all };
    }
  }

  async close(): Promise<void> {
    await this.client?.end().catch(() => undefined);
  }
}

/** Milliseconds of GC pauses on this thread since `start()`, in all and in full (mark-compact) collections. */
export class GcPauses {
  totalMs = 0;
  majorMs = 0;
  count = 0;
  /** Heap used just after the latest full GC (bytes): the live heap, garbage aside; null before the first. */
  liveAfterMajor: number | null = null;
  private observer: PerformanceObserver | null = null;

  start(): this {
    this.observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        this.totalMs += entry.duration;
        this.count++;
        if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
          this.majorMs += entry.duration;
          // Read when the entry is delivered, a moment after the collection: near enough to what survived it.
          this.liveAfterMajor = process.memoryUsage().heapUsed;
        }
      }
    });
    this.observer.observe({ entryTypes: ['gc'] });
    return this;
  }

  stop(): void {
    this.observer?.disconnect();
  }
}

/** One statement's cumulative counters in pg_stat_statements (see PostgresStatements). */
export interface StatementCounters {
  /** The statement's text, whitespace collapsed, cut to 100 characters. */
  query: string;
  calls: number;
  execMs: number;
  rows: number;
  /** Shared buffers hit and read: the work a call does, whatever the machine's load (execution time is not). */
  blocks: number;
}

/**
 * The server's own account of its work per statement (pg_stat_statements), for the bench's
 * database: which statement's cost per request grows as the soak's tables do (issue 26). Only
 * when the server preloads the module (`shared_preload_libraries`); otherwise `read` answers
 * null and the soak goes on without it. Keyed by queryid.
 */
export class PostgresStatements {
  private client: Client | null = null;
  private available: boolean | null = null;

  constructor(private readonly databaseUrl: string) {}

  async read(): Promise<Map<string, StatementCounters> | null> {
    if (this.available === false) return null;
    try {
      if (!this.client) {
        const client = new Client({ connectionString: this.databaseUrl });
        await client.connect();
        this.client = client;
        await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      }
      const { rows } = await this.client.query<{ queryid: string; query: string; calls: string; exec_ms: number; rows: string; blocks: string }>(
        `SELECT s.queryid::text AS queryid, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 100) AS query, s.calls, s.total_exec_time AS exec_ms,
                s.rows, s.shared_blks_hit + s.shared_blks_read AS blocks
           FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
          WHERE d.datname = current_database()`,
      );
      this.available = true;
      return new Map(
        rows.map((r) => [r.queryid, { query: r.query, calls: Number(r.calls), execMs: r.exec_ms, rows: Number(r.rows), blocks: Number(r.blocks) }]),
      );
    } catch {
      // Not preloaded (the view cannot be read) or not installable: the soak runs without it.
      this.available = this.available ?? false;
      return null;
    }
  }

  async close(): Promise<void> {
    await this.client?.end().catch(() => undefined);
  }
}

/** One statement's share of a stretch of the soak: per request, and per call. */
export interface StatementMinute {
  query: string;
  callsPerRequest: number;
  execMsPerRequest: number;
  execMsPerCall: number;
  rowsPerCall: number;
  blocksPerCall: number;
}

/** The `top` statements by execution time between two readings, per request (`requests` answered in between). */
export function statementsBetween(from: Map<string, StatementCounters>, to: Map<string, StatementCounters>, requests: number, top: number): StatementMinute[] {
  const out: StatementMinute[] = [];
  if (requests <= 0) return out;
  for (const [id, b] of to) {
    const a = from.get(id) ?? { calls: 0, execMs: 0, rows: 0, blocks: 0 };
    const calls = b.calls - a.calls;
    // A reset between the two readings (pg_stat_statements_reset) shows as fewer calls: skipped.
    if (calls <= 0) continue;
    out.push({
      query: b.query,
      callsPerRequest: calls / requests,
      execMsPerRequest: (b.execMs - a.execMs) / requests,
      execMsPerCall: (b.execMs - a.execMs) / calls,
      rowsPerCall: (b.rows - a.rows) / calls,
      blocksPerCall: (b.blocks - a.blocks) / calls,
    });
  }
  return out.sort((x, y) => y.execMsPerRequest - x.execMsPerRequest).slice(0, top);
}
