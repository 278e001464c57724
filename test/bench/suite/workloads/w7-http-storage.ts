/**
 * W7 over HTTP (issue 26): bytes per 20-turn session as the service stores them with its default
 * configuration — the suite's conversation and the one of issue 26's harness (ORDER_SUPPORT: a
 * user message, a tool call, its result, a memory write, an agent answer) sent as the public API's requests, one step
 * per request, the sessions interleaved. Rows by size (`pg_column_size`), split into the events
 * and snapshots (compared with Emmett's rows of the same conversation) and the audit seals (per
 * event: the target is ≤ 40 bytes). PostgreSQL only: the row sizes are PostgreSQL's.
 */
import { HOTEL_SEARCH, ORDER_SUPPORT, STEPS_PER_TURN, stepOfCommand, type Conversation } from '../conversation';
import { rowSizes, sizeDelta, withClient } from '../databases';
import { httpSender } from '../http-senders';
import type { RunningApi } from '../peers/rewind-http';
import { REWIND_PG_TABLES } from '../peers/rewind';
import type { Row } from '../results';
import type { Sizes } from '../sizes';
import { SESSION_TURNS } from './w7-storage';

/** Where the audit seals of events written before links lived (0005-event-seals); missing tables count 0. */
export const SEAL_TABLES = ['rewind.event_seals'];

/**
 * The audit's bytes: each event's link is written with it, in the events row (`link`, migration 8:
 * counted here apart, and also inside the events rows); older stores sealed events after the fact
 * into SEAL_TABLES — there, wait until the sealer has sealed every event (at most 60 s).
 */
async function settledSeals(url: string): Promise<Record<string, number>> {
  const deadline = Date.now() + 60_000;
  const linked = await withClient(url, async (client) => {
    const link = await client.query(
      "SELECT 1 FROM information_schema.columns WHERE table_schema = 'rewind' AND table_name = 'events' AND column_name = 'link'",
    );
    if (link.rowCount) {
      const { rows } = await client.query<{ bytes: string | null }>('SELECT coalesce(sum(pg_column_size(link)), 0) AS bytes FROM rewind.events');
      return Number(rows[0]?.bytes ?? 0);
    }
    for (const table of SEAL_TABLES) {
      if (!(await client.query<{ t: string | null }>('SELECT to_regclass($1::text)::text AS t', [table])).rows[0]?.t) continue;
      for (;;) {
        const { rows } = await client.query<{ sealed: string; events: string }>(
          `SELECT (SELECT count(*) FROM ${table}) AS sealed, (SELECT count(*) FROM rewind.events) AS events`,
        );
        if (Number(rows[0]!.sealed) >= Number(rows[0]!.events) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    return null;
  });
  return { ...(await rowSizes(url, SEAL_TABLES)), ...(linked === null ? {} : { 'rewind.events.link': linked }) };
}

/** Both conversations of W7 (the suite's and issue 26's), each on its own sessions. */
export async function measureHttpStorage(api: RunningApi, sizes: Sizes): Promise<Row[]> {
  if (!api.databaseUrl) return [];
  return [...(await measureConversation(api, sizes, HOTEL_SEARCH)), ...(await measureConversation(api, sizes, ORDER_SUPPORT))];
}

async function measureConversation(api: RunningApi, sizes: Sizes, conversation: Conversation): Promise<Row[]> {
  const url = api.databaseUrl!;
  const send = httpSender(api, 1);
  const n = sizes.storageSessions;
  const ids = Array.from({ length: n }, (_, i) => `w7http-${conversation.name}-${i}`);
  const tables = [...REWIND_PG_TABLES];
  const before = await rowSizes(url, tables);
  const sealsBefore = await settledSeals(url);
  const start = Date.now();
  for (const sessionId of ids) {
    const res = await send('POST', '/v1/sessions', { sessionId });
    if (res.status !== 201) throw new Error(`creating ${sessionId} answered ${res.status}: ${res.text.slice(0, 300)}`);
  }
  for (let t = 0; t < SESSION_TURNS; t++) {
    for (let s = 0; s < STEPS_PER_TURN; s++) {
      for (const sessionId of ids) {
        const res = await send('POST', `/v1/sessions/${sessionId}/steps`, { steps: [stepOfCommand(conversation.command(t, s))] });
        if (res.status !== 201) throw new Error(`step ${t}.${s} of ${sessionId} answered ${res.status}: ${res.text.slice(0, 300)}`);
      }
    }
  }
  const writeMs = Date.now() - start;
  const after = await rowSizes(url, tables);
  const seals = sizeDelta(sealsBefore, await settledSeals(url));
  const stored = sizeDelta(before, after);
  const events = n * (1 + SESSION_TURNS * STEPS_PER_TURN);
  const perSession = (delta: Record<string, number>) => Object.fromEntries(Object.entries(delta).map(([k, v]) => [k, Math.round(v / n)]));
  const storedBytes = Object.values(stored).reduce((a, b) => a + b, 0);
  const sealBytes = Object.values(seals).reduce((a, b) => a + b, 0);
  const base = { workload: 'W7' as const, system: 'rewind' as const, store: 'postgres' as const, path: 'http' };
  const extra = { sessions: n, events, writeMs, conversation: conversation.title, description: api.description };
  const rows: Row[] = [
    {
      ...base,
      key: `W7.rows.${conversation.name}.http`,
      label: `bytes of rows per 20-turn session written over HTTP (default configuration), ${conversation.title}: events and snapshots`,
      bytesPerSession: Math.round(storedBytes / n),
      bytesBreakdown: perSession(stored),
      notes: [`${api.description}; one step per request (POST /v1/sessions/:id/steps), ${n} sessions interleaved`],
      extra,
    },
    {
      ...base,
      key: `W7.seals.${conversation.name}.http`,
      label: `bytes of audit seals per 20-turn session written over HTTP, ${conversation.title}`,
      bytesPerSession: Math.round(sealBytes / n),
      bytesBreakdown: perSession(seals),
      notes: [
        `${(sealBytes / events).toFixed(1)} bytes per event (${events} events); links written with each event (the events rows' link column), plus any seals of events written before links`,
      ],
      extra: { ...extra, sealBytesPerEvent: sealBytes / events },
    },
  ];
  console.error(
    `  W7 over HTTP rewind/postgres ${conversation.name}: ${rows[0]!.bytesPerSession} B of rows per session, seals ${rows[1]!.bytesPerSession} B per session (${(sealBytes / events).toFixed(1)} B/event)`,
  );
  return rows;
}
