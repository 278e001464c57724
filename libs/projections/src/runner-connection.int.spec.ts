import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WriterConnection } from './connection';
import { sessionsProjection } from './projections';
import { ProjectionRunner, SILENT_LOGGER } from './runner';
import { backendsUnderTest, type Fixture } from './testing/backends';
import { appendWorkload } from './testing/workload';

/** Wraps every writer connection the database hands out, counting the calls in flight on one connection at a time. */
function countOverlaps(f: Fixture): { maxInFlight: () => number; calls: () => number; opened: () => number } {
  let max = 0;
  let calls = 0;
  let opened = 0;
  const connect = f.db.connect.bind(f.db);
  f.db.connect = async () => {
    opened++;
    const connection = await connect();
    let inFlight = 0;
    const counted =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        calls++;
        max = Math.max(max, ++inFlight);
        try {
          return await call(...args);
        } finally {
          inFlight--;
        }
      };
    const wrapped: WriterConnection = {
      dialect: connection.dialect,
      get healthy() {
        return connection.healthy;
      },
      transaction: counted(connection.transaction.bind(connection)),
      run: counted(connection.run.bind(connection)),
      tryLock: counted(connection.tryLock.bind(connection)),
      unlock: counted(connection.unlock.bind(connection)),
      close: counted(connection.close.bind(connection)),
    };
    return wrapped;
  };
  return { maxInFlight: () => max, calls: () => calls, opened: () => opened };
}

/**
 * Issue 38: every replica logged pg's "client.query() when the client is already executing a
 * query": the projection's checkpoint, read by waitFor and status, went to the writer
 * connection while a batch's transaction ran on it; and an API process, which waits for the
 * workers' projections without running them, held a writer connection per projection for it.
 */
for (const { backend, skip, on } of backendsUnderTest()) {
  describe.skipIf(skip !== null)(`projection runner's writer connection on ${on}`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await backend.open();
    });
    afterEach(() => f.close());
    afterAll(() => backend.dispose());

    it('answers one caller at a time while readers wait for the projection and ask its status', async () => {
      await appendWorkload(f.store, { events: 3000, activeSessions: 12, seed: 11 });
      const target = await f.settle();
      const overlaps = countOverlaps(f);
      const runner = new ProjectionRunner(f.store, f.db, sessionsProjection, { batchSize: 100, lingerMs: 0, logger: SILENT_LOGGER });
      runner.start();
      try {
        // Readers as the API's queries are: waiting for their write to be projected, and status probes.
        const readers = Array.from({ length: 4 }, async () => {
          while (!(await runner.waitFor(target, 20))) await runner.status();
        });
        await Promise.all(readers);
      } finally {
        await runner.stop();
      }
      expect((await runner.status()).position).toBe(target);
      expect(overlaps.calls()).toBeGreaterThan(30); // batches and reads did go through the wrapped connection
      expect(overlaps.maxInFlight()).toBe(1);
    });

    it('a process that does not run the projection waits for it without taking a writer connection', async () => {
      await appendWorkload(f.store, { events: 500, activeSessions: 4, seed: 12 });
      const target = await f.settle();
      const worker = new ProjectionRunner(f.store, f.db, sessionsProjection, { logger: SILENT_LOGGER });
      const api = new ProjectionRunner(f.store, f.db, sessionsProjection, { logger: SILENT_LOGGER });
      const overlaps = countOverlaps(f);
      const waited = api.waitFor(target, 30_000);
      await worker.catchUp(target);
      expect(await waited).toBe(true);
      expect((await api.status()).position).toBe(target);
      await Promise.all([worker.stop(), api.stop()]);
      expect(overlaps.opened()).toBe(1); // the worker's writer; the API's waits read on the shared pool
    });
  });
}
