/**
 * W2 time travel: the state at a uniformly random past version of a long session (2 000 turns =
 * 10 001 events), no cache. Rewind: `restore(streamId, v)` (nearest snapshot at or before v +
 * tail; and pure replay). Emmett: `aggregateStream` with `read.to = v` (replays 1..v).
 * LangGraph: `getTuple` of a random past checkpoint of its 1 500-checkpoint thread (W3's).
 */
import type { SystemAdapter } from '../adapter';
import { profiled } from '../profiler';
import { measureSerial, randomInt } from '../recorder';
import { latencyRow, type Row } from '../results';
import type { Sizes } from '../sizes';
import type { RewindAdapter } from '../peers/rewind';

export const LONG_SESSION = 'long';

export async function measureTimeTravel(adapter: SystemAdapter, sizes: Sizes, existing?: { sessionId: string; head: number }): Promise<Row[]> {
  let sessionId = existing?.sessionId ?? LONG_SESSION;
  let head = existing?.head ?? 0;
  const rows: Row[] = [];
  let loadMs = 0;
  let storage: Record<string, number> | undefined;
  if (!existing) {
    const before = await adapter.storageBytes(false);
    const start = Date.now();
    head = await adapter.bulkLoad(sessionId, sizes.longTurns);
    loadMs = Date.now() - start;
    const after = await adapter.storageBytes(false);
    storage = Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)]));
    sessionId = LONG_SESSION;
  }
  const variants: { key: string; label: string; runs: number; setup?: () => void; note: string }[] = [];
  const label = `state at a random past version of a ${head.toLocaleString('en-US')}-${adapter.system === 'langgraph' ? 'checkpoint' : 'event'} session`;
  if (adapter.system === 'rewind') {
    const rewind = adapter as RewindAdapter;
    variants.push(
      {
        key: 'W2.timetravel',
        label,
        runs: sizes.timeTravelRuns,
        setup: () => rewind.useSnapshotsForRestore(true),
        note: `nearest snapshot (every ${rewind.snapshotEvery}) + tail`,
      },
      {
        key: 'W2.timetravel.replay',
        label: `${label}, pure replay (snapshots off)`,
        runs: sizes.timeTravelReplayRuns,
        setup: () => rewind.useSnapshotsForRestore(false),
        note: 'events 1..v read and folded',
      },
    );
  } else if (adapter.system === 'emmett') {
    variants.push({ key: 'W2.timetravel', label, runs: sizes.timeTravelReplayRuns, note: 'aggregateStream read.to = v: events 1..v read and folded' });
  } else {
    variants.push({
      key: 'W2.timetravel',
      label,
      runs: sizes.timeTravelReplayRuns,
      note: 'getTuple(checkpoint_id) of a random past checkpoint (full state stored per step)',
    });
  }
  for (const variant of variants) {
    variant.setup?.();
    const recorder = await profiled(`W2-${adapter.system}-${adapter.store}-${variant.key}`, () =>
      measureSerial(() => adapter.restoreAt(sessionId, randomInt(1, head)), variant.runs, Math.min(20, variant.runs)),
    );
    const row = latencyRow(
      {
        workload: 'W2',
        key: variant.key,
        label: variant.label,
        system: adapter.system,
        store: adapter.store,
        path: 'library',
        notes: [variant.note],
        extra: { head, loadMs, ...(storage ? { longSessionBytes: storage } : {}) },
      },
      recorder,
    );
    rows.push(row);
    console.error(`  W2 ${adapter.system}/${adapter.store} ${variant.key}: p50 ${row.latency!.p50.toFixed(3)} ms p99 ${row.latency!.p99.toFixed(3)} ms`);
  }
  if (adapter.system === 'rewind') (adapter as RewindAdapter).useSnapshotsForRestore(true);
  return rows;
}
