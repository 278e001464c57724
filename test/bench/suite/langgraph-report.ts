/**
 * BENCHMARKS.md's LangGraph section, from the figures `npm run bench:langgraph` saves in
 * test/bench/langgraph-results.json (committed, so a full `npm run bench` renders it again).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const LANGGRAPH_RESULTS_FILE = 'test/bench/langgraph-results.json';

/** The savers measured, in the order of the table's columns. */
export const LANGGRAPH_SYSTEMS = ['postgres-saver', 'rewind-postgres', 'rewind-http', 'rewind-sqlite'] as const;
export type LangGraphSystem = (typeof LANGGRAPH_SYSTEMS)[number];

export interface LangGraphMeasurement {
  /** The column's name. */
  saver: string;
  /** How it was set up (listed under the table). */
  setup?: string;
  store: 'PostgreSQL' | 'SQLite';
  /** ISO date-time of the run. */
  measuredAt: string;
  command: string;
  /** The machine's load average (1 min) when the run started. */
  loadAverage: number;
  turns: number;
  /** The thread's bytes on disk after turn 20 and after the last turn. */
  bytes: { early: number; last: number };
  /** One `graph.invoke` (a whole turn): median of turns n-2..n+2 around turn 20 and the last turn. */
  msPerTurn: { early: number; last: number };
}

export type LangGraphResults = Partial<Record<LangGraphSystem, LangGraphMeasurement>>;

export function loadLangGraphResults(file = resolve(LANGGRAPH_RESULTS_FILE)): LangGraphResults | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LangGraphResults) : null;
}

const kb = (bytes: number) =>
  `${Math.round(bytes / 1024)
    .toLocaleString('en-US')
    .replace(/,/g, ' ')} KB`;

export function langgraphSection(results: LangGraphResults, table: (header: string[], body: string[][]) => string): string {
  const measured = LANGGRAPH_SYSTEMS.filter((id) => results[id]).map((id) => results[id]!);
  if (measured.length === 0) return '';
  const turns = Math.max(...measured.map((m) => m.turns));
  // A column from a shorter run says so in its last-turn cells.
  const cells = (f: (m: LangGraphMeasurement) => string, last = false) => measured.map((m) => (last && m.turns !== turns ? `${f(m)} (turn ${m.turns})` : f(m)));
  const body = [
    ['bytes after turn 20', ...cells((m) => kb(m.bytes.early))],
    [`bytes after turn ${turns}`, ...cells((m) => kb(m.bytes.last), true)],
    [`bytes, growth from turn 20 to ${turns}`, ...cells((m) => `${(m.bytes.last / m.bytes.early).toFixed(1)}×`, true)],
    ['ms per turn at turn 20', ...cells((m) => m.msPerTurn.early.toFixed(1))],
    [`ms per turn at turn ${turns}`, ...cells((m) => m.msPerTurn.last.toFixed(1), true)],
    ['measured', ...cells((m) => `${m.measuredAt.slice(0, 10)}, load ${m.loadAverage.toFixed(1)}`)],
  ];
  return [
    '## LangGraph checkpointer: `@rewind/langgraph` beside PostgresSaver',
    '',
    `From \`${LANGGRAPH_RESULTS_FILE}\`, written by \`npm run bench:langgraph\` (each column keeps the figures of the last run that measured it; rendered again by every \`npm run bench\`). ` +
      `One LangGraph thread of ${turns} turns, the same compiled \`StateGraph\` for every saver: agent node → \`ToolNode\` → agent node per turn, so four checkpoints plus the tasks' \`putWrites\` per turn and four messages added (the \`messages\` channel holds them all). ` +
      "Bytes: PostgreSQL = `pg_total_relation_size` of every user table of the saver's fresh database, minus the empty schema; SQLite = pages in use after a WAL checkpoint. " +
      "Latency: one `graph.invoke` (a whole turn, LangGraph's own work included), median of turns n-2..n+2. On a loaded machine (the load column) the latencies are noisy; the bytes are not.",
    '',
    table(['', ...measured.map((m) => `${m.saver} (${m.store})`)], body),
    '',
    ...measured.filter((m) => m.setup).map((m) => `- ${m.saver} (${m.store}): ${m.setup}`),
    "- Storage: PostgresSaver writes the whole `messages` list again with every checkpoint that changes it (quadratic in the thread's length); Rewind stores what each checkpoint appended (linear), over HTTP as in-process (the same saver code, the same events). Over HTTP the event store's schema also keeps the API's idempotency records (the client sends an `Idempotency-Key` with every write, so a retried write is not applied twice) and one audit seal per event: that is the difference between the two PostgreSQL columns of Rewind; the API's read models (schema `rewind_read`) are not counted.",
    "- Latency: PostgresSaver's turn grows with the thread (it reads and writes the full list); Rewind's grows less (LangGraph's own per-turn work, e.g. its messages reducer, is linear in the thread too): a list item deserialized once is not revived again. Over HTTP each `put`/`putWrites` is one write request and each read of the thread one or two requests; the API runs in the bench's process (createApp, as `npm start` builds it), so its work is in the turn's time. The SQLite column pays one fsynced commit per `put` and per `putWrites` (eight per turn).",
  ].join('\n');
}

/** `markdown` with its LangGraph section replaced by `section` (appended when it has none). */
export function replaceLangGraphSection(markdown: string, section: string): string {
  const start = markdown.indexOf('\n## LangGraph checkpointer');
  if (start < 0) return `${markdown.trimEnd()}\n\n${section.trimEnd()}\n`;
  const next = markdown.indexOf('\n## ', start + 1);
  return `${markdown.slice(0, start)}\n${section.trimEnd()}\n${next < 0 ? '' : markdown.slice(next)}`;
}
