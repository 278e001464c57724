/**
 * W5 projection rebuild: events/s when rebuilding the read models from the event log.
 *
 * A hook: `libs/projections` is being built by a colleague. Its compiled module is looked up at
 * run time (so that the suite compiles without it); when it exports `rebuildProjections(store,
 * db, options)` and `ReadModelDatabase.open(config)`, the rebuild is measured on a log of
 * `rebuildSessions` 20-turn sessions; otherwise the row says why it was not measured.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EventStore } from '@rewind/event-store';
import { RewindAdapter } from '../peers/rewind';
import { profiled } from '../profiler';
import type { Row, StoreName } from '../results';
import type { Sizes } from '../sizes';

export const W5_NOT_BUILT = 'W5: not measured yet (projections not built)';

interface ProjectionsModule {
  rebuildProjections: (store: EventStore, db: unknown, options?: { batchSize?: number }) => Promise<{ events?: number; elapsedMs?: number }>;
  ReadModelDatabase: { open: (config: unknown) => Promise<{ close?: () => Promise<void>; dataSource?: { destroy(): Promise<void> } }> };
}

/** The compiled projections package (libs/projections/dist/index.js), if it has what W5 needs. */
export function loadProjections(): ProjectionsModule | string {
  const file = join(__dirname, '..', '..', '..', '..', '..', 'libs', 'projections', 'dist', 'index.js');
  if (!existsSync(file)) return `${W5_NOT_BUILT}: ${file} does not exist`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require(file) as Partial<ProjectionsModule>;
    if (typeof module.rebuildProjections !== 'function' || typeof module.ReadModelDatabase?.open !== 'function') {
      return `${W5_NOT_BUILT}: libs/projections does not export rebuildProjections and ReadModelDatabase.open`;
    }
    return module as ProjectionsModule;
  } catch (error) {
    return `${W5_NOT_BUILT}: loading libs/projections failed: ${(error as Error).message}`;
  }
}

function notMeasured(store: StoreName, reason: string): Row {
  return {
    workload: 'W5',
    key: 'W5.rebuild',
    label: 'projection rebuild (all read models) from the event log',
    system: 'rewind',
    store,
    path: 'library',
    notMeasured: reason,
  };
}

export async function measureRebuild(store: StoreName, run: string, sizes: Sizes): Promise<Row> {
  const projections = loadProjections();
  if (typeof projections === 'string') {
    console.error(`  ${projections}`);
    return notMeasured(store, projections);
  }
  const adapter = await RewindAdapter.open({ run, store });
  let db: Awaited<ReturnType<ProjectionsModule['ReadModelDatabase']['open']>> | undefined;
  try {
    for (let i = 0; i < sizes.rebuildSessions; i++) await adapter.bulkLoad(`w5-${i}`, sizes.rebuildTurns);
    const events = sizes.rebuildSessions * (1 + sizes.rebuildTurns * 5);
    db = await projections.ReadModelDatabase.open(
      store === 'sqlite' ? { type: 'sqlite', filename: adapter.location.file! } : { type: 'postgres', url: adapter.location.url! },
    );
    // The first rebuild warms up (and builds the tables once); the second is measured.
    await projections.rebuildProjections(adapter.events, db);
    const start = performance.now();
    const result = await profiled(`W5-rewind-${store}`, () => projections.rebuildProjections(adapter.events, db));
    const elapsedMs = performance.now() - start;
    const applied = result.events ?? events;
    const row: Row = {
      workload: 'W5',
      key: 'W5.rebuild',
      label: `projection rebuild (all read models) from a log of ${events.toLocaleString('en-US')} events`,
      system: 'rewind',
      store,
      path: 'library',
      throughput: applied / (elapsedMs / 1000),
      notes: ['rebuildProjections(store, db) with its defaults (shadow tables, then swap); second of two runs'],
      extra: { events: applied, elapsedMs, reported: result },
    };
    console.error(`  W5 rewind/${store}: ${Math.round(row.throughput!)} events/s (${applied} events in ${Math.round(elapsedMs)} ms)`);
    return row;
  } catch (error) {
    const reason = `W5: rebuild failed: ${(error as Error).message}`;
    console.error(`  ${reason}`);
    return notMeasured(store, reason);
  } finally {
    if (db?.close) await db.close().catch(() => undefined);
    else if (db?.dataSource) await db.dataSource.destroy().catch(() => undefined);
    await adapter.close();
  }
}
