import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStepEvent } from '@rewind/domain';
import { rebuildProjections } from './rebuild';
import { ProjectionRunner, ProjectionSupervisor, SILENT_LOGGER } from './runner';
import { auditProjection, sessionsProjection } from './projections';
import { AUDIT_LOG, TIMELINE_NODES } from './schema';
import { backendsUnderTest, type Fixture } from './testing/backends';
import { snapshotReadModels, tableRows } from './testing/inspect';
import { appendWorkload } from './testing/workload';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds; fails with `what` after a generous deadline (never a timing assertion). */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting: ${what}`);
    await sleep(20);
  }
}

class HookFailure extends Error {}

for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`projection runner on ${on}`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await backend.open();
    });
    afterEach(() => f.close());
    afterAll(() => backend.dispose());

    async function checkpoint(name: string): Promise<number> {
      return (await f.db.checkpoints()).find((c) => c.name === name)!.position;
    }

    /** Fresh rebuild from the log, compared with the live tables: they must be identical. */
    async function expectSameAsFreshRebuild(): Promise<void> {
      await f.settle();
      const before = await snapshotReadModels(f.db);
      const result = await rebuildProjections(f.store, f.db, { verify: true });
      expect(result.verification!.tables.filter((t) => t.changed + t.onlyLive + t.onlyRebuilt > 0)).toEqual([]);
      expect(result.verification!.identical).toBe(true);
      expect(await snapshotReadModels(f.db)).toEqual(before);
    }

    it('a batch that fails inside its transaction leaves read models and checkpoint as they were; a restart ends identical to a fresh rebuild', async () => {
      await appendWorkload(f.store, { events: 3000, activeSessions: 12, seed: 7 });
      let batches = 0;
      const crashing = new ProjectionRunner(f.store, f.db, sessionsProjection, {
        batchSize: 400,
        logger: SILENT_LOGGER,
        hooks: {
          beforeCommit: () => {
            if (++batches === 3) throw new HookFailure('simulated crash inside the transaction');
          },
        },
      });
      expect(await crashing.runOnce()).toBe(400);
      expect(await crashing.runOnce()).toBe(400);
      const committed = await checkpoint('sessions');
      const nodesBefore = await tableRows(f.db, TIMELINE_NODES);
      await expect(crashing.runOnce()).rejects.toThrow(HookFailure);
      await crashing.stop();

      // Nothing of the failed batch is visible: same checkpoint, same rows.
      expect(await checkpoint('sessions')).toBe(committed);
      expect(await tableRows(f.db, TIMELINE_NODES)).toEqual(nodesBefore);
      const log = await f.store.readAll({ after: 0, limit: 10_000 });
      expect(nodesBefore).toHaveLength(log.filter((e) => e.globalPosition <= committed && e.streamId.startsWith('session:') && isStepEvent(e.type)).length);

      const restarted = new ProjectionSupervisor(f.store, f.db, { batchSize: 400, logger: SILENT_LOGGER });
      await restarted.catchUp(await f.head());
      await restarted.stop();
      expect(await checkpoint('sessions')).toBe(log[log.length - 1]!.globalPosition);
      await expectSameAsFreshRebuild();
    });

    it('the background loop reports a failing batch, retries it, and recovers', async () => {
      const { events } = await appendWorkload(f.store, { events: 600, seed: 8 });
      let failures = 0;
      const runner = new ProjectionRunner(f.store, f.db, auditProjection, {
        batchSize: 100,
        logger: SILENT_LOGGER,
        hooks: {
          beforeCommit: () => {
            if (failures < 2) {
              failures++;
              throw new HookFailure('the database said no');
            }
          },
        },
      });
      runner.start();
      await eventually('the runner reports its failure', async () => (await runner.status()).lastError !== null);
      expect((await runner.status()).lastError).toContain('the database said no');
      const head = await f.settle();
      expect(await runner.waitFor(head, 30_000)).toBe(true);
      const status = await runner.status();
      await runner.stop();
      expect(status).toMatchObject({ name: 'audit', position: head, lag: 0, state: 'active', lastError: null });
      expect(await tableRows(f.db, AUDIT_LOG)).toHaveLength(events);
    });

    it('a runner killed with SIGKILL during a big catch-up restarts without skipping or repeating an event', async () => {
      const script = join(process.cwd(), 'libs/projections/dist/index.js');
      if (!existsSync(script)) throw new Error(`${script} is missing: run "npm run build" first (npm test does).`);
      const events = backend.name === 'sqlite' ? 40_000 : 25_000;
      await appendWorkload(f.store, { events, activeSessions: 200, concurrency: backend.name === 'postgres' ? 8 : 1, seed: 9 });
      const head = await f.settle();

      const child = spawn(
        process.execPath,
        [
          '-e',
          `
          const p = require('@rewind/projections');
          const es = require('@rewind/event-store/sqlite');
          const pg = require('@rewind/event-store/postgres');
          const config = JSON.parse(process.env.READ_MODELS);
          (async () => {
            const store = config.type === 'sqlite' ? new es.SqliteEventStore({ filename: config.filename }) : await pg.PostgresEventStore.open({ connectionString: config.url, schema: process.env.STORE_SCHEMA });
            const db = await p.ReadModelDatabase.open(config);
            const runners = new p.ProjectionSupervisor(store, db, { batchSize: 250, logger: p.SILENT_LOGGER,
              hooks: { beforeCommit: (b) => { if (b.projection === 'sessions') process.stdout.write('batch ' + b.position + '\\n'); } } });
            await runners.catchUp();
            process.stdout.write('done\\n');
          })().catch((e) => { console.error(e); process.exit(1); });
          `,
        ],
        { env: { ...process.env, READ_MODELS: JSON.stringify(f.config), STORE_SCHEMA: f.env.REWIND_PG_SCHEMA ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      // Kill it once a good part of the first projection is done, well before the end.
      try {
        await eventually(
          `the child to apply some batches (${output})`,
          async () => (output.match(/^batch /gm)?.length ?? 0) >= 20 || child.exitCode !== null,
          60_000,
        );
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      expect(output).not.toContain('done');
      const interrupted = await f.db.checkpoints();
      expect(interrupted.some((c) => c.position < head)).toBe(true);

      const restarted = new ProjectionSupervisor(f.store, f.db, { batchSize: 1000, logger: SILENT_LOGGER });
      await restarted.catchUp(await f.head());
      await restarted.stop();
      const audit = await tableRows(f.db, AUDIT_LOG);
      expect(audit).toHaveLength((await f.store.readAll({ after: 0, limit: events * 2 })).length);
      await expectSameAsFreshRebuild();
    });

    it('one runner per projection is active; the other stands by and takes over when the first stops', async () => {
      const early = await appendWorkload(f.store, { events: 300, seed: 10 });
      const first = new ProjectionSupervisor(f.store, f.db, { projections: ['audit'], logger: SILENT_LOGGER, idleDelayMs: 20, standbyRetryMs: 50 });
      const second = new ProjectionSupervisor(f.store, f.db, { projections: ['audit'], logger: SILENT_LOGGER, idleDelayMs: 20, standbyRetryMs: 50 });
      first.start();
      await eventually('the first runner to be active', async () => (await first.status()).find((s) => s.name === 'audit')!.state === 'active');
      second.start();
      await eventually('the second runner to stand by', async () => (await second.status()).find((s) => s.name === 'audit')!.state === 'standby');
      expect((await first.status()).find((s) => s.name === 'audit')!.state).toBe('active');

      await first.stop();
      const late = await appendWorkload(f.store, { events: 100, seed: 11, sessionPrefix: 'later' });
      const head = await f.settle();
      await eventually('the second runner to take over and catch up', async () => {
        const s = (await second.status()).find((x) => x.name === 'audit')!;
        return s.state === 'active' && s.position === head;
      });
      await second.stop();
      expect(await tableRows(f.db, AUDIT_LOG)).toHaveLength(early.events + late.events);
    });

    it('a paused projection applies nothing until the pause ends; a rebuild clears a pause left by a dead one', async () => {
      await appendWorkload(f.store, { events: 200, seed: 13 });
      const head = await f.settle();
      const until = new Date(Date.now() + 3_600_000).toISOString();
      const connection = await f.db.connect();
      await connection.transaction(() => f.db.dialect.setPause('audit', until));
      const runner = new ProjectionRunner(f.store, f.db, auditProjection, { logger: SILENT_LOGGER });
      expect(await runner.runOnce()).toBe(0);
      expect(await checkpoint('audit')).toBe(0);
      expect((await runner.status()).pausedUntil).toBe(until);

      // An expired pause is no pause.
      await connection.transaction(() => f.db.dialect.setPause('audit', new Date(Date.now() - 1000).toISOString()));
      expect(await runner.runOnce()).toBeGreaterThan(0);
      expect((await runner.status()).pausedUntil).toBeNull();

      await connection.transaction(() => f.db.dialect.setPause('audit', until));
      await connection.close();
      await rebuildProjections(f.store, f.db, { projections: ['audit'] });
      expect((await runner.status()).pausedUntil).toBeNull();
      await runner.catchUp(head);
      await runner.stop();
      expect(await checkpoint('audit')).toBe(head);
    });

    it('status gives each projection its position, the head of the log and the lag', async () => {
      await appendWorkload(f.store, { events: 250, seed: 12 });
      const runners = new ProjectionSupervisor(f.store, f.db, { logger: SILENT_LOGGER });
      const head = await f.settle();
      const before = await runners.status();
      // The lag counts events, also on PostgreSQL where positions have gaps.
      const events = (await f.store.readAll({ after: 0, limit: 100_000 })).length;
      expect(events).toBeGreaterThanOrEqual(250);
      expect(before.map((s) => [s.name, s.position, s.head, s.lag, s.state])).toEqual([
        ['sessions', 0, head, events, 'stopped'],
        ['ledger', 0, head, events, 'stopped'],
        ['audit', 0, head, events, 'stopped'],
      ]);
      await runners.catchUp(await f.head());
      expect((await runners.status()).map((s) => [s.position, s.lag])).toEqual([
        [head, 0],
        [head, 0],
        [head, 0],
      ]);
      await runners.stop();
    });
  });
}
