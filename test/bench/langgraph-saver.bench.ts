/**
 * One LangGraph thread of 300 turns on three checkpointers, the same compiled StateGraph
 * (agent → tool node → agent per turn, so four checkpoints and their pending writes per turn):
 * LangGraph's PostgresSaver, and @rewind/langgraph's saver on Rewind's PostgreSQL and SQLite
 * stores. Reports the thread's storage after turn 20 and turn 300, and the time of one turn
 * (graph.invoke) around turn 20 and turn 300 (median of turns n-2..n+2).
 * Usage: npm run bench:langgraph [-- --turns 300] [-- --only postgres-saver,rewind-postgres,rewind-sqlite]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
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
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { withClient } from './suite/databases';

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

/** Every user table of the database (heap, TOAST, indexes). */
async function databaseTableBytes(url: string): Promise<number> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ bytes: string | null }>(
      `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')`,
    );
    return Number(rows[0]?.bytes ?? 0);
  });
}

interface System {
  name: string;
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
    name: 'LangGraph PostgresSaver 1.0.5 (pg Pool, default size 10)',
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
    name: '@rewind/langgraph on Rewind (PostgreSQL store)',
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
    name: '@rewind/langgraph on Rewind (embedded SQLite store; pages in use)',
    saver: new RewindCheckpointSaver(rewind),
    bytes: async () => (await rewind.sessions.repository.flushSnapshots(), usedBytes()),
    close: async () => (await rewind.close(), rmSync(dir, { recursive: true, force: true })),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(system: System, turns: number): Promise<Record<string, string>> {
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
    system: system.name,
    'bytes after turn 20': `${(bytesAt[20]! / 1024).toFixed(0)} KB`,
    [`bytes after turn ${turns}`]: `${(bytesAt[turns]! / 1024).toFixed(0)} KB`,
    'ms per turn at 20': around(20).toFixed(1),
    [`ms per turn at ${turns}`]: around(turns).toFixed(1),
  };
}

async function main(): Promise<void> {
  const turnsArg = process.argv.indexOf('--turns');
  const turns = turnsArg > 0 ? Number(process.argv[turnsArg + 1]) : 300;
  const rows = [];
  const only = process.argv.indexOf('--only');
  const systems = { 'postgres-saver': postgresSaver, 'rewind-postgres': rewindOnPostgres, 'rewind-sqlite': rewindOnSqlite };
  const chosen = only > 0 ? process.argv[only + 1]!.split(',') : Object.keys(systems);
  for (const open of chosen.map((name) => systems[name as keyof typeof systems])) {
    const system = await open();
    try {
      rows.push(await run(system, turns));
      console.log(JSON.stringify(rows[rows.length - 1]));
    } finally {
      await system.close();
    }
  }
  console.table(rows);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
