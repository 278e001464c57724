import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '@rewind/config';
import type { EventStore, StoredEvent } from '../event-store';
import { PostgresEventStore } from '../postgres';
import { useTestDatabase } from '../postgres/test-database';
import { SqliteEventStore } from '../sqlite';
import { newEvent } from '../testing/event-store.contract';
import type { CheckpointStore } from './checkpoint-store';
import { inProcessLock, postgresAdvisoryLock } from './locks';
import { PostgresCheckpointStore } from './postgres-checkpoint-store';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store';
import type { ExclusivityPolicy, LogBatch, LogSubscription } from './subscription';
import { SubscriptionHub } from './subscription-hub';

/** One process's view of a backend: its own store and checkpoint store on the shared database. */
interface Process {
  store: EventStore;
  checkpoints: CheckpointStore;
  lock(name: string): ExclusivityPolicy;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  /** A fresh database; `process()` opens another process's handles on it. */
  open(): Promise<{ process(): Promise<Process> }>;
}

const pg = useTestDatabase();

const backends: Backend[] = [
  {
    name: 'sqlite',
    async open() {
      const file = join(mkdtempSync(join(tmpdir(), 'rewind-subscriptions-')), 'rewind.db');
      return {
        async process() {
          const store = new SqliteEventStore({ filename: file });
          const checkpoints = new SqliteCheckpointStore(file);
          return {
            store,
            checkpoints,
            lock: (name) => ({ kind: 'lock', lock: inProcessLock(`${file}#${name}`) }),
            close: async () => {
              await checkpoints.close();
              await store.close();
            },
          };
        },
      };
    },
  },
  {
    name: 'postgres',
    async open() {
      const schema = `sub_${randomBytes(4).toString('hex')}`;
      return {
        async process() {
          // Other suites' transactions run in other databases and no longer hold this one back (issue 38).
          const store = await PostgresEventStore.open({ connectionString: pg.url, schema });
          return {
            store,
            checkpoints: new PostgresCheckpointStore(store.pool, Date.now, schema),
            lock: (name) => ({ kind: 'lock', lock: postgresAdvisoryLock(store.pool, schema, name) }),
            close: () => store.close(),
          };
        },
      };
    },
  },
];

/** A subscription that records what it is given, and fails while `failures` > 0. */
function recorder(name: string, checkpoints: CheckpointStore, exclusivity: ExclusivityPolicy = { kind: 'none' }) {
  const seen: StoredEvent[] = [];
  const subscription: LogSubscription & { seen: StoredEvent[]; failures: number } = {
    name,
    seen,
    failures: 0,
    checkpoint: { kind: 'store', store: checkpoints },
    exclusivity,
    async handle(batch: LogBatch) {
      if (subscription.failures > 0) {
        subscription.failures--;
        throw new Error('handler down');
      }
      seen.push(...batch.events);
    },
  };
  return subscription;
}

function capturingLogger() {
  const lines: { level: string; message: string }[] = [];
  const logger: Logger = {
    log: (message) => lines.push({ level: 'log', message }),
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
  };
  return { logger, lines };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const append = (store: EventStore, stream: string, n: number) =>
  store.append(
    stream,
    Array.from({ length: n }, (_, i) => newEvent('MemoryWritten', { key: 'k', value: i })),
    { expectedVersion: 'any' },
  );

describe.each(backends)('SubscriptionHub on $name', (backend) => {
  const opened: Process[] = [];
  const hubs: SubscriptionHub[] = [];
  const open = async () => {
    const database = await backend.open();
    return async () => {
      const process = await database.process();
      opened.push(process);
      return process;
    };
  };
  const hub = (process: Process, options: ConstructorParameters<typeof SubscriptionHub>[1] = {}) => {
    const created = new SubscriptionHub(process.store, { idleDelayMs: 20, lingerMs: 1, ...options });
    hubs.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((h) => h.stop()));
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  it('resumes from its checkpoint after a restart: nothing handled twice, nothing skipped', async () => {
    const processOf = await open();
    const first = await processOf();
    await append(first.store, 'a', 5);
    const before = recorder('resume', first.checkpoints);
    const one = hub(first);
    one.add(before);
    one.start();
    await until(() => before.seen.length === 5, 'the first five events');
    await one.stop();

    await append(first.store, 'a', 3);
    const second = await processOf();
    const after = recorder('resume', second.checkpoints);
    const two = hub(second);
    two.add(after);
    two.start();
    await until(() => after.seen.length === 3, 'the three new events');
    expect(after.seen[0]!.globalPosition).toBeGreaterThan(before.seen[4]!.globalPosition);
    expect(after.seen.map((e) => e.streamVersion)).toEqual([6, 7, 8]);
  });

  it('runs a lock subscription in one hub at a time; the other stands by and takes over when the first stops', async () => {
    const processOf = await open();
    const [a, b] = [await processOf(), await processOf()];
    const inA = recorder('exclusive', a.checkpoints, a.lock('exclusive'));
    const inB = recorder('exclusive', b.checkpoints, b.lock('exclusive'));
    const hubA = hub(a, { standbyRetryMs: 20 });
    const hubB = hub(b, { standbyRetryMs: 20 });
    const loopA = hubA.add(inA);
    const loopB = hubB.add(inB);
    hubA.start();
    await until(() => loopA.runtime().state === 'running', 'the first hub to run');
    hubB.start();
    await until(() => loopB.runtime().state === 'standby', 'the second hub to stand by');

    await append(a.store, 'x', 4);
    await until(() => inA.seen.length === 4, 'the running hub to see the events');
    expect(inB.seen).toEqual([]);
    expect(loopB.runtime().state).toBe('standby');

    await hubA.stop();
    await append(a.store, 'x', 2);
    await until(() => inB.seen.length === 2, 'the standby to take over');
    expect(loopB.runtime().state).toBe('running');
    expect(inB.seen.map((e) => e.streamVersion)).toEqual([5, 6]);
  });

  it('poke() wakes a follower that would otherwise sleep for a minute', { timeout: 20_000 }, async () => {
    const processOf = await open();
    const p = await processOf();
    const follower = recorder('poked', p.checkpoints);
    const sleepy = hub(p, { idleDelayMs: 60_000, lingerMs: 1 });
    sleepy.add(follower);
    await append(p.store, 'p', 1);
    sleepy.start();
    await until(() => follower.seen.length === 1, 'the first event');
    // Now the loop pauses a minute (idle); only a poke can make it read before the test times out.
    await append(p.store, 'p', 1);
    sleepy.poke();
    await until(() => follower.seen.length === 2, 'the poked follower to see the commit');
    await append(p.store, 'p', 1);
    sleepy.poke();
    await until(() => follower.seen.length === 3, 'the second poke');
  });

  it('lets a batch gather while it lingers: commits poked in the pause after a batch reach the handler together', { timeout: 20_000 }, async () => {
    const processOf = await open();
    const p = await processOf();
    const follower = recorder('gathering', p.checkpoints);
    const batches: number[] = [];
    const handle = follower.handle.bind(follower);
    follower.handle = async (batch) => {
      batches.push(batch.events.length);
      await handle(batch);
    };
    const lingering = hub(p, { idleDelayMs: 60_000, lingerMs: 400 });
    lingering.add(follower);
    await append(p.store, 'g', 1);
    lingering.start();
    await until(() => follower.seen.length === 1, 'the first event');
    // The loop now lingers 400 ms: three commits, each poked at once, must not run the handler three times.
    for (let i = 0; i < 3; i++) {
      await append(p.store, 'g', 1);
      lingering.poke();
    }
    await until(() => follower.seen.length === 4, 'the commits made during the linger');
    expect(batches).toEqual([1, 3]);
  });

  it('grows its batches while a backlog lasts (up to maxBatchSize) and goes back to batchSize once caught up', { timeout: 20_000 }, async () => {
    const processOf = await open();
    const p = await processOf();
    const follower = recorder('growing', p.checkpoints);
    const batches: number[] = [];
    const handle = follower.handle.bind(follower);
    follower.handle = async (batch) => {
      batches.push(batch.events.length);
      await handle(batch);
    };
    await append(p.store, 'b', 20);
    const growing = hub(p, { idleDelayMs: 20, lingerMs: 1 });
    const loop = growing.add(follower, { batchSize: 2, maxBatchSize: 8 });
    growing.start();
    await until(() => follower.seen.length === 20, 'the backlog');
    // 2, 4, 8 while every batch is full; 6 (the rest of an 8) ends the backlog.
    expect(batches).toEqual([2, 4, 8, 6]);
    await until(() => loop.nextBatchSize === 2, 'the size to go back');
    await append(p.store, 'b', 3);
    growing.poke();
    await until(() => follower.seen.length === 23, 'the three new events');
    expect(batches.slice(4)).toEqual([2, 1]);
    expect(follower.seen.map((e) => e.streamVersion)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
  });

  it('cuts the linger short for a reader waiting for its write (read your writes)', { timeout: 20_000 }, async () => {
    const processOf = await open();
    const p = await processOf();
    const follower = recorder('read-your-writes', p.checkpoints);
    const lingering = hub(p, { idleDelayMs: 60_000, lingerMs: 10_000 });
    const loop = lingering.add(follower);
    await append(p.store, 'r', 1);
    lingering.start();
    await until(() => follower.seen.length === 1, 'the first event');
    // The loop lingers ten seconds now; a reader of the next write must not wait for that.
    await append(p.store, 'r', 1);
    lingering.poke();
    // Within 5 s: half the linger, so only a cut-short linger can make it.
    expect(await loop.waitFor(await p.store.lastPosition(), 5_000)).toBe(true);
    expect(follower.seen).toHaveLength(2);
  });

  it('reports lag as a count of events, also where positions have gaps', async () => {
    const processOf = await open();
    const p = await processOf();
    for (let i = 0; i < 4; i++) {
      await append(p.store, `g${i}`, 1);
      // Another transaction in between: on PostgreSQL it takes a position-sized gap.
      if (p.store instanceof PostgresEventStore) await p.store.pool.query('SELECT txid_current()');
    }
    const follower = recorder('lagging', p.checkpoints);
    const h = hub(p);
    const loop = h.add(follower);
    const head = await p.store.lastPosition();
    if (backend.name === 'postgres') expect(head).toBeGreaterThan(4); // the gaps are there
    expect((await loop.status()).lag).toBe(4);
    await loop.runOnce();
    expect(await h.status()).toEqual([{ name: 'lagging', state: 'stopped', lastError: null, position: head, lag: 0 }]);
  });

  it('backs off after errors, logs once, and recovers without skipping an event', async () => {
    const processOf = await open();
    const p = await processOf();
    const { logger, lines } = capturingLogger();
    const follower = recorder('flaky', p.checkpoints);
    follower.failures = 3;
    const h = hub(p, { logger, backoff: { initialDelayMs: 5, maxDelayMs: 20 } });
    const loop = h.add(follower);
    await append(p.store, 'f', 3);
    h.start();
    await until(() => loop.runtime().lastError === 'handler down', 'the error to show');
    await until(() => follower.seen.length === 3, 'the recovery');
    expect(follower.failures).toBe(0);
    expect(follower.seen.map((e) => e.streamVersion)).toEqual([1, 2, 3]);
    await until(() => loop.runtime().lastError === null, 'the error to clear');
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1); // the same error is logged once
    expect(lines.some((l) => l.level === 'log' && l.message.includes('recovered'))).toBe(true);
    expect(await p.checkpoints.load('flaky')).toBe(follower.seen[2]!.globalPosition);
  });
});
