/**
 * W7 storage: bytes per 20-turn session, two ways. N sessions are written through each system's
 * live path (one write per step, the sessions interleaved step by step as concurrent agents
 * would), and compared before and after:
 *
 * - on disk: the size of the system's tables (PostgreSQL: `pg_total_relation_size`, partitions
 *   summed: heap, TOAST, indexes, maps) or file (SQLite, after a WAL checkpoint and VACUUM);
 * - by row size: the stored rows alone (PostgreSQL: `pg_column_size` of each row; SQLite: the
 *   record payloads), without indexes or page slack.
 *
 * Both for the suite's conversation (HOTEL_SEARCH) and, where the system takes it, for issue
 * 17's harness conversation (ORDER_SUPPORT). The suite's sessions stay: W1 restores them.
 */
import type { SystemAdapter } from '../adapter';
import { HOTEL_SEARCH, ORDER_SUPPORT, STEPS_PER_TURN, type Conversation } from '../conversation';
import { sizeDelta } from '../databases';
import type { Row } from '../results';
import type { Sizes } from '../sizes';

export const SESSION_TURNS = 20;

/** Writes the sessions round-robin, one step of each in turn. */
export async function writeInterleaved(adapter: SystemAdapter, sessionIds: string[], turns: number, conversation?: Conversation): Promise<void> {
  for (const id of sessionIds) await adapter.prepare?.(id, turns, conversation);
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

const perSession = (delta: Record<string, number>, n: number) =>
  Object.fromEntries(Object.entries(delta).map(([name, bytes]) => [name, Math.round(bytes / n)]));

/** The suite's conversation keeps the keys earlier runs used (W7.bytes); the other adds its name. */
const keyOf = (conversation: Conversation, measure: 'bytes' | 'rows') =>
  conversation === HOTEL_SEARCH ? `W7.${measure}` : `W7.${measure}.${conversation.name}`;

async function measureConversation(adapter: SystemAdapter, sizes: Sizes, conversation: Conversation): Promise<{ rows: Row[]; sessionIds: string[] }> {
  const prefix = conversation === HOTEL_SEARCH ? 's20' : `s20-${conversation.name}`;
  const sessionIds = Array.from({ length: sizes.storageSessions }, (_, i) => `${prefix}-${i}`);
  const before = await adapter.storageBytes(true);
  const rowsBefore = await adapter.rowBytes();
  const start = Date.now();
  await writeInterleaved(adapter, sessionIds, SESSION_TURNS, conversation === HOTEL_SEARCH ? undefined : conversation);
  const writeMs = Date.now() - start;
  const after = await adapter.storageBytes(true);
  const rowsAfter = await adapter.rowBytes();
  const n = sessionIds.length;
  const onDisk = sizeDelta(before, after);
  const stored = sizeDelta(rowsBefore, rowsAfter);
  const writes = 1 + SESSION_TURNS * STEPS_PER_TURN;
  const base = { workload: 'W7' as const, system: adapter.system, store: adapter.store, path: 'library' };
  const extra = { sessions: n, writeMs, conversation: conversation.title, description: adapter.description };
  const rows: Row[] = [
    {
      ...base,
      key: keyOf(conversation, 'bytes'),
      label: `bytes on disk per 20-turn session, ${conversation.title} (${writes} writes each, ${n} sessions)`,
      bytesPerSession: Math.round(counted(onDisk) / n),
      bytesBreakdown: perSession(onDisk, n),
      extra: { ...extra, before, after },
    },
    {
      ...base,
      key: keyOf(conversation, 'rows'),
      label: `bytes of rows per 20-turn session, ${conversation.title} (${writes} writes each, ${n} sessions)`,
      bytesPerSession: Math.round(counted(stored) / n),
      bytesBreakdown: perSession(stored, n),
      extra: { ...extra, before: rowsBefore, after: rowsAfter },
    },
  ];
  console.error(
    `  W7 ${adapter.system}/${adapter.store} ${conversation.name}: ${rows[0]!.bytesPerSession} B on disk, ${rows[1]!.bytesPerSession} B of rows per session (${writeMs} ms to write ${n} sessions)`,
  );
  return { rows, sessionIds };
}

export async function measureStorage(adapter: SystemAdapter, sizes: Sizes): Promise<{ rows: Row[]; sessionIds: string[] }> {
  const suite = await measureConversation(adapter, sizes, HOTEL_SEARCH);
  const rows = [...suite.rows];
  if (adapter.speaksOtherConversations) rows.push(...(await measureConversation(adapter, sizes, ORDER_SUPPORT)).rows);
  return { rows, sessionIds: suite.sessionIds };
}
