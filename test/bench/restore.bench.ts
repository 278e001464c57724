/**
 * Restore times on the embedded store (issue 2's measurement; the full suite is `npm run bench`).
 * Usage: npm run bench:restore
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionRepository, SessionService, sessionStreamId } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { performance } from 'node:perf_hooks';
import { fmt, measure } from './stats';

const caller = { tenantId: 'bench', actor: 'bench' };

/** One turn: user message, agent message, a tool call with its result, a memory write (5 events). */
async function writeTurns(service: SessionService, sessionId: string, turns: number): Promise<void> {
  for (let t = 0; t < turns; t++) {
    await service.execute(caller, sessionId, { type: 'RecordMessage', role: 'user', content: `Question ${t}: where should we stay near the old town?` });
    await service.execute(caller, sessionId, { type: 'StartToolCall', toolCallId: `call-${t}`, tool: 'search_hotels', input: { city: 'Lisbon', night: t } });
    await service.execute(caller, sessionId, {
      type: 'CompleteToolCall',
      toolCallId: `call-${t}`,
      output: { hotels: ['Alfama Inn', 'Baixa House'], cheapest: 89 + t },
    });
    await service.execute(caller, sessionId, { type: 'RecordMessage', role: 'agent', content: `Answer ${t}: Alfama Inn is close and costs ${89 + t} EUR.` });
    await service.execute(caller, sessionId, { type: 'WriteMemory', key: `pref-${t % 7}`, value: { turn: t, likes: 'old town' } });
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-bench-'));
  const quick = process.argv.includes('--quick');
  try {
    const strides = process.argv.includes('--sweep') ? [0, 25, 50, 100, 200, 500] : [0, 100];
    for (const snapshotEvery of strides) {
      const store = new SqliteEventStore({ filename: join(dir, `restore-${snapshotEvery}.db`) });
      const service = new SessionService(new SessionRepository(store, { snapshotEvery }));
      const fresh = new SessionRepository(store, { snapshotEvery }); // no cache: every call restores from the store
      await service.startSession(caller, { sessionId: 'short' });
      await writeTurns(service, 'short', 20);
      await service.startSession(caller, { sessionId: 'long' });
      const writeStart = performance.now();
      await writeTurns(service, 'long', quick ? 400 : 2000);
      const writeMs = performance.now() - writeStart;
      const short = sessionStreamId('bench', 'short');
      const long = sessionStreamId('bench', 'long');
      const longVersion = await store.streamVersion(long);
      const label = snapshotEvery === 0 ? 'pure replay (no snapshots)' : `snapshots every ${snapshotEvery} events`;
      console.log(`\n${label}  (writing the long session: ${((writeMs * 1000) / ((quick ? 400 : 2000) * 5)).toFixed(1)} µs per event)`);
      console.log(
        `  20-turn session (${await store.streamVersion(short)} events), head:        ${fmt(await measure(() => fresh.restore(short, Number.MAX_SAFE_INTEGER), 2000))}`,
      );
      console.log(`  20-turn session, random past version:     ${fmt(await measure(() => fresh.restore(short, 1 + Math.floor(Math.random() * 100)), 2000))}`);
      const runs = snapshotEvery === 0 ? 30 : 1000;
      console.log(`  ${longVersion}-event session, head:          ${fmt(await measure(() => fresh.restore(long, Number.MAX_SAFE_INTEGER), runs, 5))}`);
      console.log(
        `  ${longVersion}-event session, random past:   ${fmt(await measure(() => fresh.restore(long, 1 + Math.floor(Math.random() * longVersion)), runs, 5))}`,
      );
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
