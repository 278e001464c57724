import type { EventStore, StoredEvent } from '@rewind/event-store';
import { applyBatch, type BatchHooks, type BatchTarget } from './batch';
import type { WriterConnection } from './connection';
import { toProjectedEvent, type ProjectedEvent } from './projected-event';
import { selectProjections, type Projection } from './projections';
import type { ReadModelDatabase } from './read-model-database';
import { createShadowTable, dropShadowTable, finishShadowTable, swapShadowTable } from './shadow';
import { SHADOW_SUFFIX, type Dialect, type Step } from './sql';
import { compareTable, tableIdentical, type TableComparison, type Verification } from './verify';

export interface RebuildProgress {
  phase: 'rebuilding' | 'catching-up' | 'swapping' | 'done';
  /** Events applied to the shadow tables so far. */
  events: number;
  position: number;
  /** Head of the log when last looked at. */
  head: number;
  /** Share of the log (by position) done, 0..1; null when the log was empty. */
  fraction: number | null;
  eventsPerSecond: number;
  etaSeconds: number | null;
  elapsedMs: number;
}

export interface RebuildOptions {
  /** Projection names (default: all). */
  projections?: string[];
  /** Compare the rebuilt tables with the live ones at the same position before swapping. */
  verify?: boolean;
  /**
   * When to replace the live tables: `always` (the default), `when-identical` (a rebuild that
   * differs from the live tables is reported and dropped), or `never` (a read-only check).
   * Anything but `always` compares first, as `verify` does.
   */
  swap?: 'always' | 'when-identical' | 'never';
  /** Events per transaction (default 5000). */
  batchSize?: number;
  /** Differing rows shown per table and kind (default 10). */
  sampleRows?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /** Test hooks: inside each shadow batch's transaction, and after it commits. */
  hooks?: BatchHooks & { afterBatch?: (position: number) => Promise<void> | void };
}

export interface RebuildResult {
  projections: string[];
  /** Events applied to the shadow tables. */
  events: number;
  /** The checkpoint the projections continue from. */
  position: number;
  elapsedMs: number;
  /**
   * Time spent in the swap transactions, holding the lock the runners take (on SQLite, the
   * file's write lock: the API's writes wait meanwhile). A verifying rebuild compares between
   * two such transactions, with the live runners paused but nothing locked.
   */
  swapMs: number;
  verification: Verification | null;
  /** Whether the rebuilt tables replaced the live ones (false: dropped, the live tables untouched). */
  swapped: boolean;
}

/** Another rebuild of the same projection is running. */
export class RebuildBusyError extends Error {
  constructor(name: string) {
    super(`A rebuild of projection "${name}" is already running (in this or another process); wait for it to finish.`);
    this.name = 'RebuildBusyError';
  }
}

const shadowCheckpoint = (projection: Projection) => `${projection.name}${SHADOW_SUFFIX}`;

/**
 * Rebuilds projections from the event log into shadow tables, then swaps them in, in one
 * transaction, under the lock the runners take for every batch (the checkpoint row on
 * PostgreSQL, the file's write lock on SQLite). The service may keep writing meanwhile:
 * the shadows catch up to the head of the log, the last stretch is applied inside the swap
 * transaction, and the live runners continue from the swapped checkpoint.
 *
 * With `verify`: one short transaction brings the live tables and the shadows to the same
 * position and pauses the live runners (a lease in their checkpoint rows); the tables are
 * compared row by row with nothing locked (on SQLite the API keeps writing); a second short
 * transaction swaps and resumes. With `swap: 'always'` the rebuilt tables replace the live
 * ones either way (they are what the log says; the report tells what differed); with
 * `when-identical` a difference keeps the live tables, with `never` nothing is ever swapped.
 */
export async function rebuildProjections(store: EventStore, db: ReadModelDatabase, options: RebuildOptions = {}): Promise<RebuildResult> {
  const projections = selectProjections(options.projections);
  const batchSize = options.batchSize ?? 5000;
  const sampleRows = options.sampleRows ?? 10;
  const swapMode = options.swap ?? 'always';
  const verify = options.verify === true || swapMode !== 'always';
  const started = Date.now();
  const connection = await db.connect();
  const d = connection.dialect;
  const locked: string[] = [];
  let extra: WriterConnection[] = [];
  let paused = false;
  try {
    for (const p of projections) {
      if (!(await connection.tryLock('rebuild', p.name))) throw new RebuildBusyError(p.name);
      locked.push(p.name);
    }
    await connection.transaction(function* () {
      for (const p of projections) {
        for (const table of p.tables) yield* createShadowTable(d, table.name);
        yield* d.setCheckpoint(shadowCheckpoint(p), 0);
        // A pause left by a verifying rebuild that died: we hold the rebuild lock, so it is stale.
        yield* d.setPause(p.name, null);
      }
    });

    const writers = d.postgres && projections.length > 1 ? new Map<Projection, WriterConnection>() : null;
    if (writers) for (const p of projections) writers.set(p, await db.connect());
    extra = writers ? [...writers.values()] : [];

    let position = 0;
    let events = 0;
    let head = await store.lastPosition();
    let headCheckedAt = Date.now();
    const report = async (phase: RebuildProgress['phase']) => {
      if (!options.onProgress) return;
      if (Date.now() - headCheckedAt > 1000) {
        head = Math.max(head, await store.lastPosition());
        headCheckedAt = Date.now();
      }
      const elapsedMs = Date.now() - started;
      const fraction = head > 0 ? Math.min(1, position / head) : null;
      const eventsPerSecond = elapsedMs > 0 ? (events * 1000) / elapsedMs : 0;
      const etaSeconds = fraction !== null && fraction > 0 && phase !== 'done' ? ((elapsedMs / fraction) * (1 - fraction)) / 1000 : null;
      options.onProgress({ phase, events, position, head: Math.max(head, position), fraction, eventsPerSecond, etaSeconds, elapsedMs });
    };

    const lostCheckpoint = () => new Error('The rebuild lost its shadow checkpoint: was another rebuild started against the same database?');
    /** A batch has reached every shadow: move on. */
    const batchDone = async (last: number, count: number, phase: RebuildProgress['phase']) => {
      position = last;
      events += count;
      await options.hooks?.afterBatch?.(position);
      await report(phase);
    };

    /** Fills the shadows up to the head (as of the last read that came back short); `bulk` the first time. */
    const fillShadows = async (phase: RebuildProgress['phase'], bulk = false) => {
      const target = (p: Projection, from: number): BatchTarget => ({ projection: p, variant: 'shadow', checkpoint: shadowCheckpoint(p), from });
      let pending: Promise<StoredEvent[]> | null = store.readAll({ after: position, limit: batchSize });
      if (!writers) {
        while (pending) {
          const stored: StoredEvent[] = await pending;
          if (stored.length === 0) return;
          const last = stored[stored.length - 1]!.globalPosition;
          // Read the next batch while this one is written.
          pending = stored.length === batchSize ? store.readAll({ after: last, limit: batchSize }) : null;
          // If this batch fails, the read ahead must not become an unhandled rejection.
          pending?.catch(() => undefined);
          const batch = stored.map(toProjectedEvent);
          // SQLite has one writer per file: one transaction for all. Shadow batches need not
          // wait for the disk: after a power loss the rebuild starts over.
          const from = position;
          const applied = await connection.transaction(
            () =>
              applyBatch(
                d,
                projections.map((p) => target(p, from)),
                batch,
                options.hooks,
                { bulk },
              ),
            {
              durable: false,
            },
          );
          if (!applied) throw lostCheckpoint();
          await batchDone(last, batch.length, phase);
        }
        return;
      }
      // PostgreSQL: one connection per projection, each applying the batches in order at its own
      // pace, so that the database writes one batch while the next is read and converted here.
      const chains = new Map<Projection, Promise<void>>(projections.map((p) => [p, Promise.resolve()]));
      const inFlight: { done: Promise<unknown>; last: number; count: number }[] = [];
      let from = position;
      try {
        while (pending) {
          const stored: StoredEvent[] = await pending;
          if (stored.length === 0) break;
          const last = stored[stored.length - 1]!.globalPosition;
          pending = stored.length === batchSize ? store.readAll({ after: last, limit: batchSize }) : null;
          pending?.catch(() => undefined);
          const batch = stored.map(toProjectedEvent);
          const batchFrom = from;
          for (const p of projections) {
            const apply = () => writers.get(p)!.transaction(() => applyBatch(d, [target(p, batchFrom)], batch, options.hooks, { bulk }), { durable: false });
            chains.set(
              p,
              chains.get(p)!.then(async () => {
                if (!(await apply())) throw lostCheckpoint();
              }),
            );
          }
          const done = Promise.all(projections.map((p) => chains.get(p)!));
          done.catch(() => undefined);
          inFlight.push({ done, last, count: batch.length });
          from = last;
          // At most two batches queued behind the one being written: memory stays bounded.
          while (inFlight.length > 2) {
            const oldest = inFlight.shift()!;
            await oldest.done;
            await batchDone(oldest.last, oldest.count, phase);
          }
        }
        for (const batch of inFlight.splice(0)) {
          await batch.done;
          await batchDone(batch.last, batch.count, phase);
        }
      } finally {
        // On failure, let the writers' open transactions end before the shadows are dropped.
        await Promise.allSettled(chains.values());
      }
    };

    /** Verify needs the live projections current too: apply the log to them as a runner would. */
    const catchUpLive = async () => {
      for (const p of projections) {
        for (;;) {
          const from = (await connection.run(() => d.checkpoint(p.name))) ?? 0;
          const stored = await store.readAll({ after: from, limit: batchSize });
          if (stored.length === 0) break;
          const applied = await connection.transaction(() =>
            applyBatch(d, [{ projection: p, variant: 'live', checkpoint: p.name, from }], stored.map(toProjectedEvent), {}, { ignorePause: true }),
          );
          if (applied && stored.length < batchSize) break;
        }
      }
    };

    await report('rebuilding');
    await fillShadows('rebuilding', true);
    // Derive what the bulk fill left out, then build the shadows' secondary indexes: on
    // PostgreSQL each projection on its own connection, in parallel.
    const finish = async (p: Projection, on: WriterConnection) => {
      const finishBulk = p.finishBulk;
      if (finishBulk) await on.transaction(() => finishBulk(d, 'shadow'));
      await on.run(function* () {
        for (const table of p.tables) yield* finishShadowTable(d, table.name);
      });
    };
    if (writers) {
      const outcomes = await Promise.allSettled(projections.map((p) => finish(p, writers.get(p)!)));
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
    } else {
      for (const p of projections) await finish(p, connection);
    }
    if (verify) await catchUpLive();

    const maxSwapEvents = batchSize * 4;
    for (let attempt = 1; attempt <= 20; attempt++) {
      await fillShadows('catching-up');
      if (verify) await catchUpLive();
      // Read the last stretch now: the swap transaction applies it without waiting on the log.
      // Verifying brings each live projection to the shadows' position: read from the one furthest behind.
      const checkpoints = new Map((await db.checkpoints()).map((c) => [c.name, c.position]));
      const start = verify ? Math.min(position, ...projections.map((p) => checkpoints.get(p.name) ?? 0)) : position;
      const tail: ProjectedEvent[] = [];
      for (let after = start; ; ) {
        const stored = await store.readAll({ after, limit: batchSize });
        for (const e of stored) tail.push(toProjectedEvent(e));
        if (stored.length < batchSize || tail.length > maxSwapEvents) break;
        after = stored[stored.length - 1]!.globalPosition;
      }
      if (tail.length > maxSwapEvents) continue;
      const plan: SwapPlan = { position, start, tailEnd: tail.length > 0 ? tail[tail.length - 1]!.position : start, tail, verify };
      await report('swapping');

      if (!verify) {
        const lockedAt = Date.now();
        const outcome = await connection.transaction(() => swap(d, projections, plan));
        if (!outcome) continue;
        events += outcome.shadowEvents;
        position = outcome.position;
        await report('done');
        return {
          projections: projections.map((p) => p.name),
          events,
          position,
          elapsedMs: Date.now() - started,
          swapMs: Date.now() - lockedAt,
          verification: null,
          swapped: true,
        };
      }

      // Verify: bring both copies to one position and pause the live runners (a short
      // transaction), compare without holding the write lock, then swap (a short transaction).
      let lockedAt = Date.now();
      const pauseUntil = new Date(Date.now() + PAUSE_MS).toISOString();
      const aligned = await connection.transaction(() => align(d, projections, plan, pauseUntil));
      let swapMs = Date.now() - lockedAt;
      if (!aligned) continue;
      paused = true;
      events += aligned.shadowEvents;
      position = aligned.position;
      const tables = await connection.run(function* () {
        const out: TableComparison[] = [];
        for (const p of projections) for (const table of p.tables) out.push(yield* compareTable(d, table, sampleRows));
        return out;
      });
      const verification: Verification = {
        position,
        projections: projections.map((p) => p.name),
        identical: tables.every(tableIdentical),
        tables,
      };
      if (swapMode === 'never' || (swapMode === 'when-identical' && !verification.identical)) {
        // Read-only: drop the shadows and resume the live runners; the live tables stay as they were.
        await connection.transaction(() => discardAligned(d, projections));
        paused = false;
        await report('done');
        return { projections: projections.map((p) => p.name), events, position, elapsedMs: Date.now() - started, swapMs, verification, swapped: false };
      }
      lockedAt = Date.now();
      const swapped = await connection.transaction(() => swapAligned(d, projections, position));
      swapMs += Date.now() - lockedAt;
      if (!swapped) {
        throw new Error(
          'A live projection moved while the rebuild had paused it to compare (did the pause expire, or was a checkpoint changed by hand?); nothing was swapped: run the rebuild again.',
        );
      }
      paused = false;
      await report('done');
      return { projections: projections.map((p) => p.name), events, position, elapsedMs: Date.now() - started, swapMs, verification, swapped: true };
    }
    throw new Error('The rebuild could not catch up with the event log to swap in its tables (the log grew too fast 20 times in a row); run it again.');
  } catch (error) {
    // Leave nothing half-built behind (only when this run owns the shadows), and resume the runners.
    if (locked.length === projections.length) {
      await connection
        .transaction(function* () {
          for (const p of projections) {
            for (const table of p.tables) yield* dropShadowTable(d, table.name);
            yield* d.deleteCheckpoint(shadowCheckpoint(p));
            if (paused) yield* d.setPause(p.name, null);
          }
        })
        .catch(() => undefined);
    }
    throw error;
  } finally {
    for (const writer of extra) await writer.close();
    for (const name of locked) await connection.unlock('rebuild', name).catch(() => undefined);
    await connection.close();
  }
}

interface SwapPlan {
  /** Where the shadows are. */
  position: number;
  /** The tail starts after this position... */
  start: number;
  /** ...and ends here. */
  tailEnd: number;
  tail: readonly ProjectedEvent[];
  verify: boolean;
}

/** How long a verifying rebuild may keep the live runners paused (it resumes them as soon as it is done). */
const PAUSE_MS = 10 * 60_000;

/** Locks the live checkpoints; null when one moved past the tail read beforehand (the caller catches up and retries). */
function* lockLive(d: Dialect, projections: readonly Projection[], plan: SwapPlan): Step<Map<string, number> | null> {
  const live = new Map<string, number>();
  for (const p of [...projections].sort((a, b) => (a.name < b.name ? -1 : 1))) live.set(p.name, (yield* d.checkpoint(p.name, true)) ?? 0);
  const target = Math.max(plan.position, ...live.values());
  // To verify, the tail read beforehand must reach back to every live checkpoint.
  if (plan.verify) for (const position of live.values()) if (position < plan.start) return null;
  if (target > Math.max(plan.tailEnd, plan.position)) return null;
  return live;
}

/**
 * The swap without verification, in one transaction holding the projections' checkpoint
 * locks: bring the shadows to T (at least every live checkpoint), replace the live tables,
 * point the checkpoints at T.
 */
function* swap(d: Dialect, projections: readonly Projection[], plan: SwapPlan): Step<{ position: number; shadowEvents: number } | null> {
  const live = yield* lockLive(d, projections, plan);
  if (!live) return null;
  const target = Math.max(plan.position, ...live.values());
  const forShadow = plan.tail.filter((e) => e.position > plan.position && e.position <= target);
  if (forShadow.length > 0) for (const p of projections) yield* p.apply(d, forShadow, 'shadow');
  for (const p of projections) {
    for (const table of p.tables) yield* swapShadowTable(d, table.name);
    yield* d.setCheckpoint(p.name, target);
    yield* d.deleteCheckpoint(shadowCheckpoint(p));
  }
  return { position: target, shadowEvents: forShadow.length };
}

/** Verify, step 1 (one transaction): shadows and live tables to the same position T, live runners paused. */
function* align(d: Dialect, projections: readonly Projection[], plan: SwapPlan, pauseUntil: string): Step<{ position: number; shadowEvents: number } | null> {
  const live = yield* lockLive(d, projections, plan);
  if (!live) return null;
  const target = Math.max(plan.position, ...live.values());
  const forShadow = plan.tail.filter((e) => e.position > plan.position && e.position <= target);
  if (forShadow.length > 0) for (const p of projections) yield* p.apply(d, forShadow, 'shadow');
  for (const p of projections) {
    const forLive = plan.tail.filter((e) => e.position > live.get(p.name)! && e.position <= target);
    if (forLive.length > 0) yield* p.apply(d, forLive, 'live');
    yield* d.setCheckpoint(p.name, target);
    yield* d.setCheckpoint(shadowCheckpoint(p), target);
    yield* d.setPause(p.name, pauseUntil);
  }
  return { position: target, shadowEvents: forShadow.length };
}

/** Verify, step 3 (one transaction): the live tables are still at T (paused); swap and resume. */
function* swapAligned(d: Dialect, projections: readonly Projection[], position: number): Step<boolean> {
  for (const p of [...projections].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if ((yield* d.checkpoint(p.name, true)) !== position) return false;
  }
  for (const p of projections) {
    for (const table of p.tables) yield* swapShadowTable(d, table.name);
    yield* d.setCheckpoint(p.name, position);
    yield* d.setPause(p.name, null);
    yield* d.deleteCheckpoint(shadowCheckpoint(p));
  }
  return true;
}

/** Verify without a swap (one transaction): drop the shadows, resume the live runners where they are. */
function* discardAligned(d: Dialect, projections: readonly Projection[]): Step<void> {
  for (const p of projections) {
    for (const table of p.tables) yield* dropShadowTable(d, table.name);
    yield* d.deleteCheckpoint(shadowCheckpoint(p));
    yield* d.setPause(p.name, null);
  }
}
