/**
 * W7 storage: bytes on disk per 20-turn session. N sessions are written through each system's live
 * path (one write per step, the sessions interleaved step by step as concurrent agents would), and
 * the size of the system's tables (PostgreSQL: `pg_total_relation_size`, partitions summed) or
 * file (SQLite, after a WAL checkpoint and VACUUM) is compared before and after.
 *
 * The sessions stay: W1 restores them.
 */
import type { SystemAdapter } from '../adapter';
import { STEPS_PER_TURN } from '../conversation';
import { sizeDelta } from '../databases';
import type { Row } from '../results';
import type { Sizes } from '../sizes';

export const SESSION_TURNS = 20;

/** Writes the sessions round-robin, one step of each in turn. */
export async function writeInterleaved(adapter: SystemAdapter, sessionIds: string[], turns: number): Promise<void> {
  for (const id of sessionIds) await adapter.prepare?.(id, turns);
  for (const id of sessionIds) await adapter.startSession(id);
  for (let t = 0; t < turns; t++) {
    for (let s = 0; s < STEPS_PER_TURN; s++) {
      for (const id of sessionIds) await adapter.appendStep(id, t, s);
    }
  }
}

/** Bytes that count: every table or file, but not the per-table split of the SQLite file. */
const counted = (sizes: Record<string, number>) =>
  Object.entries(sizes)
    .filter(([name]) => !name.startsWith('table:'))
    .reduce((total, [, bytes]) => total + bytes, 0);

export async function measureStorage(adapter: SystemAdapter, sizes: Sizes): Promise<{ rows: Row[]; sessionIds: string[] }> {
  const sessionIds = Array.from({ length: sizes.storageSessions }, (_, i) => `s20-${i}`);
  const before = await adapter.storageBytes(true);
  const start = Date.now();
  await writeInterleaved(adapter, sessionIds, SESSION_TURNS);
  const writeMs = Date.now() - start;
  const after = await adapter.storageBytes(true);
  const delta = sizeDelta(before, after);
  const n = sessionIds.length;
  const perTable: Record<string, number> = {};
  for (const [name, bytes] of Object.entries(delta)) perTable[name] = Math.round(bytes / n);
  const rows: Row[] = [
    {
      workload: 'W7',
      key: 'W7.bytes',
      label: `bytes on disk per 20-turn session (${1 + SESSION_TURNS * STEPS_PER_TURN} writes each, ${n} sessions)`,
      system: adapter.system,
      store: adapter.store,
      path: 'library',
      bytesPerSession: Math.round(counted(delta) / n),
      bytesBreakdown: perTable,
      extra: { sessions: n, writeMs, before, after, description: adapter.description },
    },
  ];
  console.error(`  W7 ${adapter.system}/${adapter.store}: ${Math.round(counted(delta) / n)} B per session (${writeMs} ms to write ${n} sessions)`);
  return { rows, sessionIds };
}
