/**
 * W1 restore: the current state of a 20-turn session (101 events: SessionStarted + 5 per turn),
 * rebuilt from storage with no cache, the sessions picked at random among those W7 wrote.
 * Rewind: `SessionRepository.restore` (nearest snapshot + tail; and without snapshots, pure replay).
 * Emmett: `aggregateStream` folding with Rewind's `evolveInPlace`. LangGraph: `getTuple` (latest).
 */
import type { SessionState } from '@rewind/domain';
import type { SystemAdapter } from '../adapter';
import { profiled } from '../profiler';
import { measureSerial, randomInt } from '../recorder';
import { latencyRow, type Row } from '../results';
import type { Sizes } from '../sizes';
import type { RewindAdapter } from '../peers/rewind';

/** Fails loudly if a restore does not give the 20-turn state (a fast wrong answer is not a result). */
export function checkRestored(system: string, restored: unknown): void {
  if (system === 'langgraph') {
    const tuple = restored as { checkpoint?: { channel_values?: { messages?: unknown[] } } } | undefined;
    const n = tuple?.checkpoint?.channel_values?.messages?.length;
    if (n !== 80) throw new Error(`LangGraph restore returned ${n} messages, expected 80`);
    return;
  }
  const state = restored as SessionState;
  if (state.version !== 101 || state.path.turns.length !== 20 || Object.keys(state.path.memory).length !== 7) {
    throw new Error(`${system} restore returned version ${state.version} with ${state.path.turns.length} turns, expected 101 and 20`);
  }
}

export async function measureRestore(adapter: SystemAdapter, sessionIds: string[], sizes: Sizes): Promise<Row[]> {
  const pick = () => sessionIds[randomInt(0, sessionIds.length - 1)]!;
  checkRestored(adapter.system, await adapter.restoreHead(pick()));
  const rows: Row[] = [];
  const variants: { key: string; label: string; setup?: () => void; note: string }[] =
    adapter.system === 'rewind'
      ? [
          {
            key: 'W1.restore',
            label: 'restore a 20-turn session (101 events), no cache',
            setup: () => (adapter as RewindAdapter).useSnapshotsForRestore(true),
            note: `snapshot at version 100 + 1-event tail (snapshots every ${(adapter as RewindAdapter).snapshotEvery}, the API default)`,
          },
          {
            key: 'W1.restore.replay',
            label: 'restore a 20-turn session, pure replay (snapshots off)',
            setup: () => (adapter as RewindAdapter).useSnapshotsForRestore(false),
            note: 'all 101 events read and folded',
          },
        ]
      : [
          {
            key: 'W1.restore',
            label: 'restore a 20-turn session (101 events), no cache',
            note: adapter.system === 'emmett' ? 'aggregateStream: all 101 events read and folded' : 'getTuple of the latest checkpoint (full state)',
          },
        ];
  for (const variant of variants) {
    variant.setup?.();
    const recorder = await profiled(`W1-${adapter.system}-${adapter.store}-${variant.key}`, () =>
      measureSerial(() => adapter.restoreHead(pick()), sizes.restoreRuns, sizes.restoreWarmup),
    );
    const row = latencyRow(
      { workload: 'W1', key: variant.key, label: variant.label, system: adapter.system, store: adapter.store, path: 'library', notes: [variant.note] },
      recorder,
    );
    rows.push(row);
    console.error(`  W1 ${adapter.system}/${adapter.store} ${variant.key}: p50 ${row.latency!.p50.toFixed(3)} ms p99 ${row.latency!.p99.toFixed(3)} ms`);
  }
  if (adapter.system === 'rewind') (adapter as RewindAdapter).useSnapshotsForRestore(true);
  return rows;
}
