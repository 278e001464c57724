/**
 * One LangGraph thread of 300 turns on four checkpointers, the same compiled StateGraph
 * (agent → tool node → agent per turn, so four checkpoints and their pending writes per turn):
 * LangGraph's PostgresSaver, and @rewind/langgraph's saver in-process on Rewind's PostgreSQL and
 * SQLite stores and over HTTP to the Rewind API on PostgreSQL. Reports the thread's storage after
 * turn 20 and turn 300, and the time of one turn (graph.invoke) around turn 20 and turn 300
 * (median of turns n-2..n+2). Saves them in test/bench/langgraph-results.json (each saver's
 * entry replaced by this run's), from which BENCHMARKS.md's LangGraph section is rendered (here,
 * and by every `npm run bench`).
 * Usage: npm run bench:langgraph [-- --turns 300] [-- --only postgres-saver,rewind-postgres,rewind-http,rewind-sqlite] [-- --no-save]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Pool } from 'pg';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { Rewind } from '@rewind/embedded';
import { PostgresEventStore } from '@rewind/event-store/postgres';
import { RewindCheckpointSaver } from '@rewind/langgraph';
import { RewindHttpCheckpointSaver } from '@rewind/langgraph/http';
import { createRewindClient } from '@rewind/client';
import type * as PostgresTesting from '@rewind/event-store/testing/postgres';
import type { TestDatabase } from '../support/postgres';
import { builtTestHelper } from './built-test-helper';
import { withClient } from './suite/databases';
import {
  LANGGRAPH_RESULTS_FILE,
  LANGGRAPH_SYSTEMS,
  langgraphSection,
  loadLangGraphResults,
  replaceLangGraphSection,
  type LangGraphMeasurement,
  type LangGraphSystem,
} from './suite/langgraph-report';
import { startRewindApi } from './suite/peers/rewind-http';

// The test helper from its build output: no package exports it, and the bench runs compiled under plain Node.
const { createTestDatabase } = builtTestHelper<typeof PostgresTesting>('libs/event-store/dist/testing/postgres-test-database.js');

function agent(state: typeof MessagesAnnotation.State): { messages: BaseMessage[] } {
  const last = state.messages[state.messages.length - 1]!;
  if (last instanceof ToolMessage) return { messages: [new AIMessage(`Alfama Inn is close to the old town and costs ${String(last.content)} EUR a night.`)] };
  return {
    messages: [
      new AIMessage({
        content: '',
        tool_calls: [{ id: `call-${state.messages.length}`, name: 'search_hotels', args: { city: 'Lisbon', near: 'old town' }, type: 'tool_call' }],
      }),
    ],
  };
}

function graphOn(checkpointer: BaseCheckpointSaver) {
  const search = tool(() => '89', { name: 'search_hotels', description: 'Finds hotels', schema: z.object({ city: z.string(), near: z.string() }) });
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', agent)
    .addNode('tools', new ToolNode([search]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => ((s.messages[s.messages.length - 1] as AIMessage).tool_calls?.length ? 'tools' : END))
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
}

/** Every user table of the database (heap, TOAST, indexes), or of one schema. */
async function databaseTableBytes(url: string, schema?: string): Promise<number> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ bytes: string | null }>(
      `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND ($1::text IS NULL OR n.nspname = $1)`,
      [schema ?? null],
    );
    return Number(rows[0]?.bytes ?? 0);
  });
}

interface System {
  name: string;
  setup: string;
  store: LangGraphMeasurement['store'];
  saver: BaseCheckpointSaver;
  bytes(): Promise<number>;
  close(): Promise<void>;
}

async function postgresSaver(): Promise<System> {
  const db = await createTestDatabase('rwb_langgraph_pg');
  const pool = new Pool({ connectionString: db.url });
  pool.on('error', () => undefined); // dropping the database at the end ends its connections
  const saver = new PostgresSaver(pool);
  await saver.setup();
  const base = await databaseTableBytes(db.url);
  return {
    name: 'PostgresSaver',
    setup: 'LangGraph PostgresSaver 1.0.5 on a pg Pool of 10.',
    store: 'PostgreSQL',
    saver,
    bytes: async () => (await databaseTableBytes(db.url)) - base,
    close: async () => (await saver.end(), await db.drop()),
  };
}

async function rewindOnPostgres(): Promise<System> {
  const db: TestDatabase = await createTestDatabase('rwb_langgraph_rw');
  const rewind = Rewind.on(await PostgresEventStore.open({ connectionString: db.url }));
  const base = await databaseTableBytes(db.url);
  return {
    name: 'Rewind in-process',
    setup: '`RewindCheckpointSaver` on `Rewind.on(PostgresEventStore)`.',
    store: 'PostgreSQL',
    saver: new RewindCheckpointSaver(rewind),
    bytes: async () => (await rewind.sessions.repository.flushSnapshots(), (await databaseTableBytes(db.url)) - base),
    close: async () => (await rewind.close(), await db.drop()),
  };
}

async function rewindOnSqlite(): Promise<System> {
  const dir = mkdtempSync(join(tmpdir(), 'rwb-langgraph-'));
  const rewind = Rewind.open({ dataDir: dir });
  /** Pages in use once the WAL is checkpointed into the file (the WAL itself is preallocated). */
  const usedBytes = () => {
    const db = new Database(join(dir, 'rewind.db'));
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
      const pages = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
      return pages * (db.pragma('page_size', { simple: true }) as number);
    } finally {
      db.close();
    }
  };
  return {
    name: 'Rewind in-process',
    setup: '`RewindCheckpointSaver` on `Rewind.open` (embedded file, synchronous=FULL).',
    store: 'SQLite',
    saver: new RewindCheckpointSaver(rewind),
    bytes: async () => (await rewind.sessions.repository.flushSnapshots(), usedBytes()),
    close: async () => (await rewind.close(), rmSync(dir, { recursive: true, force: true })),
  };
}

async function rewindOverHttp(): Promise<System> {
  const api = await startRewindApi('postgres', `lg${Date.now().toString(36)}`, 'langgraph');
  // The event store's schema, as for the in-process saver; the API's read models (rewind_read) come on top.
  const eventStoreBytes = () => databaseTableBytes(api.databaseUrl!, 'rewind');
  const base = await eventStoreBytes();
  return {
    name: 'Rewind over HTTP',
    setup:
      '`RewindHttpCheckpointSaver` (`@rewind/langgraph/http`, `@rewind/client`) to the Rewind API (createApp, as `npm start` builds it, in the bench process, PostgreSQL store); bytes: its event store schema `rewind`.',
    store: 'PostgreSQL',
    saver: new RewindHttpCheckpointSaver(createRewindClient({ baseUrl: api.baseUrl, apiKey: api.apiKey })),
    bytes: async () => (await eventStoreBytes()) - base,
    close: () => api.close(),
  };
}

const markdownTable = (header: string[], body: string[][]) => [header, header.map(() => '---'), ...body].map((cells) => `| ${cells.join(' | ')} |`).join('\n');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(system: System, turns: number): Promise<Omit<LangGraphMeasurement, 'measuredAt' | 'command' | 'loadAverage'>> {
  const graph = graphOn(system.saver);
  const config = { configurable: { thread_id: 'bench-thread' } };
  const took: number[] = [];
  const bytesAt: Record<number, number> = {};
  for (let turn = 1; turn <= turns; turn++) {
    const started = performance.now();
    await graph.invoke({ messages: [new HumanMessage(`Question ${turn}: where should we stay near the old town?`)] }, config);
    took.push(performance.now() - started);
    if (turn === 20 || turn === turns) bytesAt[turn] = await system.bytes();
  }
  const around = (n: number) => median(took.slice(Math.max(0, n - 3), Math.min(turns, n + 2)));
  return {
    saver: system.name,
    setup: system.setup,
    store: system.store,
    turns,
    bytes: { early: bytesAt[20]!, last: bytesAt[turns]! },
    msPerTurn: { early: around(20), last: around(turns) },
  };
}

async function main(): Promise<void> {
  const turnsArg = process.argv.indexOf('--turns');
  const turns = turnsArg > 0 ? Number(process.argv[turnsArg + 1]) : 300;
  if (!Number.isInteger(turns) || turns < 20)
    throw new Error(`--turns must be a whole number of at least 20 (the first figures are taken at turn 20); got ${process.argv[turnsArg + 1]}.`);
  const only = process.argv.indexOf('--only');
  const systems: Record<LangGraphSystem, () => Promise<System>> = {
    'postgres-saver': postgresSaver,
    'rewind-postgres': rewindOnPostgres,
    'rewind-http': rewindOverHttp,
    'rewind-sqlite': rewindOnSqlite,
  };
  const chosen = only > 0 ? process.argv[only + 1]!.split(',') : [...LANGGRAPH_SYSTEMS];
  const unknown = chosen.filter((name) => !(name in systems));
  if (unknown.length > 0) throw new Error(`Unknown saver(s) in --only: ${unknown.join(', ')}. Choose among ${LANGGRAPH_SYSTEMS.join(', ')}.`);
  const command = `npm run bench:langgraph -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, '');
  const loadAverage = loadavg()[0]!;
  const results = loadLangGraphResults() ?? {};
  for (const name of chosen as LangGraphSystem[]) {
    const system = await systems[name]();
    try {
      const measured = await run(system, turns);
      results[name] = { ...measured, measuredAt: new Date().toISOString(), command, loadAverage };
      console.log(JSON.stringify({ [name]: results[name] }));
    } finally {
      await system.close();
    }
  }
  const markdown = langgraphSection(results, markdownTable);
  console.log(`\n${markdown}`);
  if (!process.argv.includes('--no-save')) {
    writeFileSync(LANGGRAPH_RESULTS_FILE, JSON.stringify(results, null, 2) + '\n');
    writeFileSync('BENCHMARKS.md', replaceLangGraphSection(readFileSync('BENCHMARKS.md', 'utf8'), markdown));
    console.error(`Saved in ${LANGGRAPH_RESULTS_FILE} and BENCHMARKS.md's LangGraph section (every \`npm run bench\` renders it from that file again).`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
