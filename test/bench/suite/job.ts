/**
 * One job of the suite, run in its own process by main.ts: one system on one store, the
 * workloads that go with it. Separate processes keep the systems from sharing a heap, a JIT
 * state or a driver's global settings (Emmett's dumbo changes node-postgres' type parsers).
 *
 * Usage: node dist/test/bench/suite/job.js '<json JobSpec>'   (writes the JobResult to spec.resultFile)
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import type { SystemAdapter } from './adapter';
import type { JobResult, Row, StoreName, WorkloadId } from './results';
import { sizesFor, type Sizes } from './sizes';

export interface JobSpec {
  job: JobName;
  run: string;
  quick: boolean;
  /** Workloads to run (all of the job's when absent). */
  only?: WorkloadId[];
  resultFile: string;
}

export const JOB_NAMES = [
  'database',
  'rewind-sqlite',
  'rewind-postgres',
  'emmett',
  'langgraph',
  'rewind-sqlite-http',
  'rewind-postgres-http',
  'emmett-http',
  'projections',
  'memory',
] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** Which workloads each job can run (main.ts skips jobs with none of the wanted ones). */
export const JOB_WORKLOADS: Record<JobName, WorkloadId[]> = {
  database: ['DB'],
  'rewind-sqlite': ['W7', 'W1', 'W2', 'W3'],
  'rewind-postgres': ['W7', 'W1', 'W2', 'W3', 'W4'],
  emmett: ['W7', 'W1', 'W2', 'W3', 'W4'],
  langgraph: ['W7', 'W1', 'W3', 'W2'],
  'rewind-sqlite-http': ['W3', 'W4', 'W6', 'HTTP', 'W2', 'MEM', 'SOAK'],
  'rewind-postgres-http': ['W3', 'W4', 'W6', 'HTTP', 'W2', 'MEM', 'W7', 'SOAK'],
  'emmett-http': ['W4'],
  projections: ['W5'],
  memory: ['MEM'],
};

interface Context {
  spec: JobSpec;
  sizes: Sizes;
  want: (w: WorkloadId) => boolean;
}

/** W7 then W1 on its sessions, W2, W3 (and W4 at library level) for one adapter. */
async function libraryWorkloads(ctx: Context, adapter: SystemAdapter, withLibraryThroughput: boolean): Promise<Row[]> {
  const { measureStorage } = await import('./workloads/w7-storage.js');
  const { measureRestore } = await import('./workloads/w1-restore.js');
  const { measureTimeTravel } = await import('./workloads/w2-time-travel.js');
  const { measureLibraryAppend } = await import('./workloads/w3-append.js');
  const { measureLibraryThroughput } = await import('./workloads/w4-throughput.js');
  const rows: Row[] = [];
  if (ctx.want('W7') || ctx.want('W1')) {
    const storage = await measureStorage(adapter, ctx.sizes);
    if (ctx.want('W7')) rows.push(...storage.rows);
    if (ctx.want('W1')) rows.push(...(await measureRestore(adapter, storage.sessionIds, ctx.sizes)));
  }
  if (adapter.system === 'langgraph') {
    // LangGraph's W2 data is its W3 thread (1 500 checkpoints): it has no faster way to write them.
    if (ctx.want('W3') || ctx.want('W2')) {
      const appended = await measureLibraryAppend(adapter, ctx.sizes);
      if (ctx.want('W3')) rows.push(...appended.rows);
      if (ctx.want('W2')) rows.push(...(await measureTimeTravel(adapter, ctx.sizes, appended.last)));
    }
    return rows;
  }
  if (ctx.want('W2')) rows.push(...(await measureTimeTravel(adapter, ctx.sizes)));
  if (ctx.want('W3')) rows.push(...(await measureLibraryAppend(adapter, ctx.sizes)).rows);
  if (withLibraryThroughput && ctx.want('W4')) rows.push(await measureLibraryThroughput(adapter, ctx.sizes));
  return rows;
}

async function rewindLibrary(ctx: Context, store: StoreName): Promise<Row[]> {
  const { RewindAdapter } = await import('./peers/rewind.js');
  const adapter = await RewindAdapter.open({ run: ctx.spec.run, store });
  try {
    return await libraryWorkloads(ctx, adapter, store === 'postgres');
  } finally {
    await adapter.close();
  }
}

async function rewindHttp(ctx: Context, store: StoreName): Promise<Row[]> {
  const { startRewindApi } = await import('./peers/rewind-http.js');
  const { measureHttpAppend } = await import('./workloads/w3-append.js');
  const { measureFloorThroughput, measureHttpThroughput, measureNullThroughput } = await import('./workloads/w4-throughput.js');
  const { measureRollback } = await import('./workloads/w6-rollback.js');
  const { measureHttpPath, measureHttpTimeTravel } = await import('./workloads/http-path.js');
  const rows: Row[] = [];
  if (ctx.want('MEM')) {
    // W3 under W4's load with the memory indexer off, then on: each on an API of its own.
    const { measureAppendUnderLoad } = await import('./workloads/mem-http-load.js');
    rows.push(...(await measureAppendUnderLoad(store, ctx.spec.run, ctx.sizes)));
  }
  if (ctx.want('SOAK')) {
    const { measureSoak } = await import('./workloads/soak.js');
    rows.push(...(await measureSoak(store, ctx.spec.run, ctx.sizes)));
  }
  if (!(['W3', 'W4', 'W6', 'HTTP', 'W2', 'W7'] as const).some((w) => ctx.want(w))) return rows;
  const api = await startRewindApi(store, ctx.spec.run);
  try {
    if (ctx.want('W7') && store === 'postgres') {
      const { measureHttpStorage } = await import('./workloads/w7-http-storage.js');
      rows.push(...(await measureHttpStorage(api, ctx.sizes)));
    }
    if (ctx.want('W3')) {
      rows.push(...(await measureHttpAppend(api, store, ctx.sizes, 'w3http', 'http')));
      // The same with fetch as the client, to show what the client itself costs (full runs only).
      if (!ctx.sizes.quick) rows.push(...(await measureHttpAppend(api, store, ctx.sizes, 'w3fetch', 'fetch')));
    }
    if (ctx.want('W4')) {
      // The null server with the same load client just before, so that the ratio is of one run and one machine state.
      rows.push(...(await measureNullThroughput(store, ctx.sizes)));
      rows.push(...(await measureFloorThroughput(store, ctx.spec.run, ctx.sizes)));
      rows.push(await measureHttpThroughput(api, { system: 'rewind', store, notes: [api.description] }, ctx.sizes, 'w4http'));
      rows.push(await measureHttpThroughput(api, { system: 'rewind', store, notes: [api.description] }, ctx.sizes, 'w4turn', 'turn'));
    }
    if (ctx.want('W6')) rows.push(await measureRollback(api, ctx.sizes));
    if (ctx.want('HTTP')) rows.push(...(await measureHttpPath(api, store, ctx.spec.run, ctx.sizes)));
    if (ctx.want('W2')) rows.push(...(await measureHttpTimeTravel(api, store, ctx.sizes)));
  } finally {
    await api.close();
  }
  return rows;
}

async function emmettHttp(ctx: Context): Promise<Row[]> {
  const { EmmettAdapter } = await import('./peers/emmett.js');
  const { EmmettHttpServer } = await import('./peers/emmett-http-server.js');
  const { EmmettFastifyServer } = await import('./peers/emmett-fastify-server.js');
  const { measureHttpThroughput } = await import('./workloads/w4-throughput.js');
  const adapter = await EmmettAdapter.open(ctx.spec.run);
  const apiKey = 'emmett-bench-key-0123456789abcdef';
  const store = adapter.description.split(' (')[0];
  const rows: Row[] = [];
  try {
    // Emmett as its documentation writes a command (issue 40): CommandHandler behind Fastify, a step then a turn per request.
    const commandHandler = new EmmettFastifyServer(adapter.eventStore, apiKey);
    try {
      const baseUrl = await commandHandler.start();
      const notes = [
        `Fastify → CommandHandler (reads the stream, folds version and open turn, appends with that version; ${store}, pool 20)`,
        'no DTO validation, in-memory API key check',
      ];
      rows.push(await measureHttpThroughput({ baseUrl, apiKey }, { system: 'emmett', store: 'postgres', notes }, ctx.sizes, 'w4emmett'));
      rows.push(await measureHttpThroughput({ baseUrl, apiKey }, { system: 'emmett', store: 'postgres', notes }, ctx.sizes, 'w4emmettturn', 'turn'));
    } finally {
      await commandHandler.stop();
    }
    // The lighter peer kept from issue 26: appendToStream with the version kept in memory, no read, no framework.
    const server = new EmmettHttpServer(adapter.eventStore, apiKey);
    try {
      const baseUrl = await server.start();
      const row = await measureHttpThroughput(
        { baseUrl, apiKey },
        {
          system: 'emmett',
          store: 'postgres',
          notes: [
            `minimal node:http server → appendToStream (${store}, pool 20)`,
            'no DTO validation, in-memory API key check, expected version kept in memory',
          ],
        },
        ctx.sizes,
        'w4http',
      );
      rows.push({ ...row, key: 'W4.http.append', path: 'http (node:http, appendToStream, no read)' });
    } finally {
      await server.stop();
    }
    return rows;
  } finally {
    await adapter.close();
  }
}

const JOBS: Record<JobName, (ctx: Context) => Promise<Row[]>> = {
  database: async (ctx) => [
    ...(await (await import('./workloads/db-ceiling.js')).measureCeiling(ctx.spec.run, ctx.sizes)),
    await (await import('./workloads/http-ceiling.js')).measureHttpCeiling(ctx.sizes),
  ],
  'rewind-sqlite': (ctx) => rewindLibrary(ctx, 'sqlite'),
  'rewind-postgres': (ctx) => rewindLibrary(ctx, 'postgres'),
  emmett: async (ctx) => {
    const { EmmettAdapter } = await import('./peers/emmett.js');
    const adapter = await EmmettAdapter.open(ctx.spec.run);
    try {
      return await libraryWorkloads(ctx, adapter, true);
    } finally {
      await adapter.close();
    }
  },
  langgraph: async (ctx) => {
    const { LangGraphAdapter } = await import('./peers/langgraph.js');
    const adapter = await LangGraphAdapter.open(ctx.spec.run);
    try {
      return await libraryWorkloads(ctx, adapter, false);
    } finally {
      await adapter.close();
    }
  },
  'rewind-sqlite-http': (ctx) => rewindHttp(ctx, 'sqlite'),
  'rewind-postgres-http': (ctx) => rewindHttp(ctx, 'postgres'),
  'emmett-http': emmettHttp,
  projections: async (ctx) => {
    const { measureRebuild } = await import('./workloads/w5-projections.js');
    return [await measureRebuild('sqlite', ctx.spec.run, ctx.sizes), await measureRebuild('postgres', ctx.spec.run, ctx.sizes)];
  },
  memory: async (ctx) => (await import('./workloads/mem-recall.js')).measureMemory(ctx.sizes),
};

export async function runJob(spec: JobSpec): Promise<JobResult> {
  const startedAt = new Date().toISOString();
  const start = Date.now();
  const only = spec.only && spec.only.length > 0 ? new Set(spec.only) : null;
  // The soak (ten minutes) runs only when asked for by name (`--soak`).
  const ctx: Context = { spec, sizes: sizesFor(spec.quick), want: (w) => (only === null ? w !== 'SOAK' : only.has(w)) };
  try {
    const rows = await JOBS[spec.job](ctx);
    return { job: spec.job, startedAt, durationMs: Date.now() - start, rows };
  } catch (error) {
    console.error(error);
    return { job: spec.job, startedAt, durationMs: Date.now() - start, rows: [], error: (error as Error).stack ?? String(error) };
  }
}

if (require.main === module) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as JobSpec;
  runJob(spec).then(
    (result) => {
      writeFileSync(spec.resultFile, JSON.stringify(result));
      // Open handles (pools, timers) must not keep a finished job alive.
      process.exit(result.error ? 1 : 0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
