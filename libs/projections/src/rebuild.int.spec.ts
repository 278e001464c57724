import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RebuildBusyError, rebuildProjections, type RebuildProgress } from './rebuild';
import { ProjectionSupervisor, SILENT_LOGGER } from './runner';
import { AUDIT_LOG, HEAD_MESSAGES, SESSIONS, TOOL_CALL_LEDGER } from './schema';
import { backendsUnderTest, type Fixture } from './testing/backends';
import { snapshotReadModels, tableRows } from './testing/inspect';
import { appendWorkload } from './testing/workload';
import { formatVerification } from './verify';

for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`rebuild and verify on ${on}`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await backend.open();
    });
    afterEach(() => f.close());
    afterAll(() => backend.dispose());

    async function catchUp(): Promise<void> {
      const runners = new ProjectionSupervisor(f.store, f.db, { logger: SILENT_LOGGER });
      await runners.catchUp(await f.head());
      await runners.stop();
    }

    async function indexNames(): Promise<string[]> {
      const rows: { name: string }[] =
        backend.name === 'sqlite'
          ? await f.db.dataSource.query(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
          : await f.db.dataSource.query(`SELECT indexname AS name FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`, [f.db.dialect.schema]);
      return rows.map((r) => r.name);
    }

    async function tableNames(): Promise<string[]> {
      const rows: { name: string }[] =
        backend.name === 'sqlite'
          ? await f.db.dataSource.query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
          : await f.db.dataSource.query(`SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, [f.db.dialect.schema]);
      return rows.map((r) => r.name);
    }

    it('rebuilds every projection from the log into identical tables, swapped in under their own names', async () => {
      const written = await appendWorkload(f.store, { events: 4000, activeSessions: 30, seed: 21 });
      await catchUp();
      const before = await snapshotReadModels(f.db);
      const indexes = await indexNames();
      const tables = await tableNames();
      const progress: RebuildProgress[] = [];

      const result = await rebuildProjections(f.store, f.db, { verify: true, batchSize: 500, onProgress: (p) => progress.push(p) });

      expect(result.verification!.identical).toBe(true);
      expect(result.verification!.tables.map((t) => [t.table, t.liveRows === t.rebuiltRows])).toEqual([
        ['sessions', true],
        ['timeline_nodes', true],
        ['head_messages', true],
        ['tool_call_ledger', true],
        ['rollbacks', true],
        ['audit_log', true],
      ]);
      expect(result.verification!.tables.find((t) => t.table === 'audit_log')!.rebuiltRows).toBe(written.events);
      expect(result).toMatchObject({ projections: ['sessions', 'ledger', 'audit'], events: written.events, position: await f.head() });
      expect(formatVerification(result.verification!)).toContain('Verified: the live read models (sessions, ledger, audit) match a rebuild');
      expect(await snapshotReadModels(f.db)).toEqual(before);
      expect(await indexNames()).toEqual(indexes);
      expect(await tableNames()).toEqual(tables);
      expect((await f.db.checkpoints()).map((c) => c.name).sort()).toEqual(['audit', 'ledger', 'sessions']);
      expect(progress[progress.length - 1]).toMatchObject({ phase: 'done', events: written.events, fraction: 1 });
      expect(progress.filter((p) => p.phase === 'rebuilding').length).toBeGreaterThanOrEqual(8);

      // The runners carry on from the swapped checkpoint.
      const more = await appendWorkload(f.store, { events: 300, seed: 22, sessionPrefix: 'after' });
      await catchUp();
      expect(await tableRows(f.db, AUDIT_LOG)).toHaveLength(written.events + more.events);
    });

    it('verify reports tampered live rows by table and key, exits the comparison unequal, and the swap repairs them', async () => {
      await appendWorkload(f.store, { events: 1500, activeSessions: 10, seed: 23 });
      await catchUp();
      const d = f.db.dialect;
      const [victim] = await tableRows(f.db, SESSIONS, { tenant_id: 'acme' });
      await f.db.dataSource.query(
        `UPDATE ${d.qualified('sessions')} SET title = 'Tampered', message_count = 999 WHERE tenant_id = ${d.p(1)} AND session_id = ${d.p(2)}`,
        ['acme', victim!.session_id],
      );
      const [message] = await tableRows(f.db, HEAD_MESSAGES, { tenant_id: 'default' });
      await f.db.dataSource.query(
        `DELETE FROM ${d.qualified('head_messages')} WHERE tenant_id = ${d.p(1)} AND session_id = ${d.p(2)} AND version = ${d.p(3)}`,
        ['default', message!.session_id, message!.version],
      );
      await f.db.dataSource.query(
        `INSERT INTO ${d.qualified('audit_log')} (global_position, tenant_id, session_id, stream_id, stream_version, event_id, type, actor, occurred_at) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => d.p(i)).join(', ')})`,
        [9_000_000_000, 'acme', 'ghost', 'session:acme:ghost', 1, 'forged', 'SessionStarted', 'mallory', '2026-01-01T00:00:00.000Z'],
      );
      const ledger = await tableRows(f.db, TOOL_CALL_LEDGER, { tenant_id: 'globex' });
      expect(ledger.length).toBeGreaterThan(0);

      await f.settle();
      const result = await rebuildProjections(f.store, f.db, { verify: true, sampleRows: 5 });
      const v = result.verification!;
      expect(v.identical).toBe(false);
      const byTable = Object.fromEntries(v.tables.map((t) => [t.table, t]));
      expect(byTable.sessions).toMatchObject({ changed: 1, onlyLive: 0, onlyRebuilt: 0 });
      expect(byTable.sessions!.samples).toEqual([
        {
          kind: 'changed',
          key: { tenant_id: 'acme', session_id: victim!.session_id },
          columns: [
            { column: 'title', live: 'Tampered', rebuilt: victim!.title },
            { column: 'message_count', live: 999, rebuilt: victim!.message_count },
          ],
        },
      ]);
      expect(byTable.head_messages).toMatchObject({ changed: 0, onlyLive: 0, onlyRebuilt: 1 });
      expect(byTable.audit_log).toMatchObject({ onlyLive: 1, liveRows: byTable.audit_log!.rebuiltRows + 1 });
      expect(byTable.timeline_nodes).toMatchObject({ changed: 0, onlyLive: 0, onlyRebuilt: 0 });

      const report = formatVerification(v);
      expect(report).toContain('Verification FAILED: sessions, head_messages, audit_log differ');
      expect(report).toContain(`changed  tenant_id=acme session_id=${victim!.session_id}: title: live "Tampered" ≠ rebuilt ${JSON.stringify(victim!.title)}`);
      expect(report).toContain(`missing from live  tenant_id=default session_id=${message!.session_id} version=${message!.version}`);
      expect(report).toContain('only in live  global_position=9000000000');
      expect(report).toContain('actor="mallory"');

      // The rebuilt tables replaced the tampered ones: a second check finds nothing.
      const again = await rebuildProjections(f.store, f.db, { verify: true });
      expect(again.verification!.identical).toBe(true);
      expect((await tableRows(f.db, SESSIONS, { tenant_id: 'acme', session_id: victim!.session_id }))[0]).toMatchObject({ title: victim!.title });
    });

    it('a read-only verification (swap never) and a careful rebuild (swap when identical) leave differing live tables untouched', async () => {
      await appendWorkload(f.store, { events: 800, activeSessions: 8, seed: 31 });
      await catchUp();
      const d = f.db.dialect;
      const [victim] = await tableRows(f.db, SESSIONS, { tenant_id: 'acme' });
      await f.db.dataSource.query(`UPDATE ${d.qualified('sessions')} SET title = 'Tampered' WHERE tenant_id = ${d.p(1)} AND session_id = ${d.p(2)}`, [
        'acme',
        victim!.session_id,
      ]);
      await f.settle();
      const tampered = await snapshotReadModels(f.db);
      const tables = await tableNames();

      for (const swap of ['never', 'when-identical'] as const) {
        const result = await rebuildProjections(f.store, f.db, { swap, sampleRows: 5 });
        expect(result.swapped).toBe(false);
        expect(result.verification!.identical).toBe(false);
        expect(result.verification!.tables.find((t) => t.table === 'sessions')).toMatchObject({ changed: 1 });
        expect(await snapshotReadModels(f.db)).toEqual(tampered);
        expect(await tableNames()).toEqual(tables); // no shadow left behind
        expect((await f.db.checkpoints()).map((c) => c.name).sort()).toEqual(['audit', 'ledger', 'sessions']);
      }
      // The live runners were resumed: new events reach the live tables.
      const more = await appendWorkload(f.store, { events: 50, seed: 32, sessionPrefix: 'later' });
      await catchUp();
      expect((await tableRows(f.db, AUDIT_LOG)).length).toBeGreaterThanOrEqual(800 + more.events);

      // A rebuild that matches is swapped in when identical; `always` repairs the tampered row.
      const repaired = await rebuildProjections(f.store, f.db, { swap: 'always', verify: true });
      expect(repaired).toMatchObject({ swapped: true });
      const checked = await rebuildProjections(f.store, f.db, { swap: 'when-identical' });
      expect(checked).toMatchObject({ swapped: true, verification: { identical: true } });
      expect((await tableRows(f.db, SESSIONS, { tenant_id: 'acme', session_id: victim!.session_id }))[0]).toMatchObject({ title: victim!.title });
    });

    it('rebuilding while the service keeps writing ends consistent, and the live runners carry on from the swap', async () => {
      await appendWorkload(f.store, { events: 3000, activeSessions: 40, seed: 24 });
      const runners = new ProjectionSupervisor(f.store, f.db, { logger: SILENT_LOGGER, idleDelayMs: 10, batchSize: 200 });
      runners.start();
      const writerStore = await f.openStore();
      let writing = true;
      let round = 0;
      let appendedDuring = 0;
      const writer = (async () => {
        while (writing) {
          const r = await appendWorkload(writerStore, { events: 150, activeSessions: 5, seed: 100 + round, sessionPrefix: `live${round++}`, concurrency: 2 });
          appendedDuring += r.events;
        }
      })();
      let batchesDuringWrites = 0;
      const result = await rebuildProjections(f.store, f.db, {
        verify: true,
        batchSize: 250,
        hooks: {
          afterBatch: async () => {
            batchesDuringWrites++;
            // Let the writer and the live runners make progress between rebuild batches.
            await new Promise((resolve) => setTimeout(resolve, 5));
          },
        },
      });
      writing = false;
      await writer;
      expect(appendedDuring).toBeGreaterThan(0);
      expect(batchesDuringWrites).toBeGreaterThan(5);
      expect(result.verification!.identical).toBe(true);

      // Everything written, during the rebuild or after its swap, reaches the read models once.
      const head = await f.settle();
      for (const runner of runners.runners.values()) expect(await runner.waitFor(head, 60_000)).toBe(true);
      await runners.stop();
      const all = await f.store.readAll({ after: 0, limit: 100_000 });
      expect(await tableRows(f.db, AUDIT_LOG)).toHaveLength(all.length);
      const versions = new Map<string, number>();
      for (const e of all) if (e.streamId.startsWith('session:')) versions.set(e.streamId, e.streamVersion);
      const sessions = await tableRows(f.db, SESSIONS);
      expect(new Map(sessions.map((s) => [`session:${s.tenant_id}:${s.session_id}`, s.version]))).toEqual(versions);
      await f.settle();
      const final = await rebuildProjections(f.store, f.db, { verify: true });
      expect(final.verification!.identical).toBe(true);
    });

    it('refuses a second rebuild of a projection while one runs, and leaves no shadow behind when one fails', async () => {
      await appendWorkload(f.store, { events: 1200, seed: 25 });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const first = rebuildProjections(f.store, f.db, {
        projections: ['audit'],
        batchSize: 200,
        hooks: {
          afterBatch: async () => {
            entered();
            await gate;
          },
        },
      });
      await inside;
      await expect(rebuildProjections(f.store, f.db, { projections: ['audit'] })).rejects.toThrow(RebuildBusyError);
      await expect(rebuildProjections(f.store, f.db, { projections: ['audit'] })).rejects.toThrow(/A rebuild of projection "audit" is already running/);
      expect((await f.db.checkpoints()).find((c) => c.name === 'audit__rebuild')).toBeDefined();
      release();
      expect((await first).projections).toEqual(['audit']);

      const failing = rebuildProjections(f.store, f.db, {
        projections: ['sessions'],
        batchSize: 200,
        hooks: {
          beforeCommit: (b) => {
            if (b.position > 600) throw new Error('disk full');
          },
        },
      });
      await expect(failing).rejects.toThrow('disk full');
      expect((await tableNames()).filter((t) => t.endsWith('__rebuild'))).toEqual([]);
      expect((await f.db.checkpoints()).map((c) => c.name).sort()).toEqual(['audit', 'ledger', 'sessions']);

      // All projections at once (on PostgreSQL, one writer each, batches pipelined): one failing writer fails the rebuild, and cleans up.
      const before = await f.db.checkpoints();
      let committed = 0;
      const failingAll = rebuildProjections(f.store, f.db, {
        batchSize: 100,
        hooks: {
          beforeCommit: (b) => {
            if (b.projection === 'ledger' && b.position > 500) throw new Error('ledger disk full');
            committed++;
          },
        },
      });
      await expect(failingAll).rejects.toThrow('ledger disk full');
      expect(committed).toBeGreaterThan(3);
      expect((await tableNames()).filter((t) => t.endsWith('__rebuild'))).toEqual([]);
      expect(await f.db.checkpoints()).toEqual(before);
      const after = await rebuildProjections(f.store, f.db, { verify: true, batchSize: 100 });
      expect(after.verification!.identical).toBe(true);
    });
  });
}
