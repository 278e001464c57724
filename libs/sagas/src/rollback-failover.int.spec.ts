import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointStore, PostgresEventStore } from '@rewind/event-store/postgres';
import { SubscriptionHub } from '@rewind/event-store/subscriptions';
import { createTestDatabase, type TestDatabase } from '@rewind/event-store/testing/postgres';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { STRICT_EGRESS } from './channels/egress-policy';
import type { RollbackLeaseStore } from './leases/rollback-lease-store';
import { PostgresRollbackLeaseStore } from './postgres';
import { createSessionRuntime, type SessionRuntime } from './session-runtime';

const caller = { tenantId: 'acme', actor: 'tester' };
const LEASE_MS = 1500;

/**
 * A compensator that honours Idempotency-Key (a repeated key answers the first outcome and
 * changes nothing), counts requests and effects, and leaves the first request for a chosen
 * booking unanswered: the compensation in flight when its process dies.
 */
class Compensator {
  readonly requests = new Map<string, string[]>(); // booking → Idempotency-Keys received
  readonly effects = new Map<string, number>(); // booking → times it was cancelled
  readonly hung: ServerResponse[] = [];
  private readonly outcomes = new Map<string, string>();
  private server!: Server;
  url = '';

  constructor(private readonly hangOnce: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const booking = req.url!.split('/').pop()!;
      const key = String(req.headers['idempotency-key']);
      this.requests.set(booking, [...(this.requests.get(booking) ?? []), key]);
      if (booking === this.hangOnce && this.requests.get(booking)!.length === 1) {
        this.hung.push(res);
        return;
      }
      if (!this.outcomes.has(key)) {
        this.effects.set(booking, (this.effects.get(booking) ?? 0) + 1);
        this.outcomes.set(key, JSON.stringify({ cancelled: booking }));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(this.outcomes.get(key));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** One "process": its own pool, hub, follower of the log and saga, sharing the database with the others. */
async function startProcess(url: string, leases: (store: PostgresEventStore) => Promise<RollbackLeaseStore>) {
  const store = await PostgresEventStore.open({ connectionString: url, poolSize: 4 });
  const hub = new SubscriptionHub(store);
  const runtime: SessionRuntime = createSessionRuntime(store, {
    snapshotEvery: 0,
    bus: new InProcessMessageBus(),
    hub,
    checkpoints: new PostgresCheckpointStore(store.pool, Date.now, store.schema),
    leases: await leases(store),
    rollbackLeaseMs: LEASE_MS,
    egress: { ...STRICT_EGRESS, allow: ['127.0.0.1'] },
  });
  runtime.rollbacks!.start();
  runtime.takeover!.start();
  return { store, runtime };
}

describe('rollback failover on PostgreSQL: an undo whose process dies is finished by a live one', () => {
  let db: TestDatabase;
  const compensator = new Compensator('b2');
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('rewind_saga_failover');
    await compensator.start();
  });

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await compensator.stop();
    await db?.drop();
  });

  it('takes over within the lease and a third after the holder dies, never while it lives, and undoes each effect once', async () => {
    // The first process's database link can be cut: its renewals then fail, as a SIGKILLed process's stop.
    const link = { dead: false };
    const cut = (store: RollbackLeaseStore): RollbackLeaseStore => ({
      acquire: (...args) => (link.dead ? Promise.reject(new Error('killed')) : store.acquire(...args)),
      renew: (...args) => (link.dead ? Promise.reject(new Error('killed')) : store.renew(...args)),
      release: (...args) => (link.dead ? Promise.reject(new Error('killed')) : store.release(...args)),
    });
    const first = await startProcess(db.url, async (store) => cut(await PostgresRollbackLeaseStore.open(store.pool, store.schema)));
    closers.push(() => first.store.close());
    const second = await startProcess(db.url, (store) => PostgresRollbackLeaseStore.open(store.pool, store.schema));
    closers.push(
      () => second.store.close(),
      () => second.runtime.saga.stop(),
      () => second.runtime.rollbacks!.stop(),
      () => second.runtime.takeover!.stop(),
    );

    const sessions = first.runtime.sessions;
    await sessions.startSession(caller, { sessionId: 'trip' });
    for (const booking of ['b1', 'b2', 'b3']) {
      await sessions.execute(caller, 'trip', {
        type: 'StartToolCall',
        toolCallId: booking,
        tool: 'book',
        input: {},
        effect: {
          kind: 'reversible',
          compensation: { channel: 'http', target: `${compensator.url}/cancel/{{output.bookingId}}` },
          // One attempt may take 60 s: the hung request never times out during the test.
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, timeoutMs: 60_000 },
        },
      });
      await sessions.execute(caller, 'trip', { type: 'CompleteToolCall', toolCallId: booking, output: { bookingId: booking } });
    }
    const { rollbackId } = await sessions.execute(caller, 'trip', { type: 'MoveHead', kind: 'rollback', toVersion: 1 });

    // Newest first: b3 is undone and recorded, then b2's request hangs in the first process.
    await expect.poll(() => compensator.requests.get('b2')?.length ?? 0, { timeout: 10_000 }).toBe(1);
    expect(compensator.effects.get('b3')).toBe(1);
    // While its holder lives (renewing), the second process leaves the rollback alone, for several leases.
    await sleep(3 * LEASE_MS);
    expect(compensator.requests.get('b2')).toHaveLength(1);
    expect(compensator.requests.get('b1')).toBeUndefined();
    expect((await second.runtime.sessions.getState(caller, 'trip')).rollbacks[rollbackId!]!.status).toBe('in_progress');

    // The first process dies: no more renewals, no more reading of the log.
    link.dead = true;
    const diedAt = Date.now();
    await first.runtime.takeover!.stop();
    await first.runtime.rollbacks!.stop();

    await expect
      .poll(async () => (await second.runtime.sessions.getState(caller, 'trip')).rollbacks[rollbackId!]!.status, { timeout: 10_000, interval: 50 })
      .toBe('completed');
    const tookMs = Date.now() - diedAt;
    // The lease ran out at most LEASE_MS after the last renewal, and the second process looks every third of it.
    expect(tookMs).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 1500);

    // Each booking cancelled once. b3's outcome was in the log: never sent again. b2's request was in flight: sent again
    // with the same Idempotency-Key, which the compensator answered from its first outcome.
    expect(Object.fromEntries(compensator.effects)).toEqual({ b1: 1, b2: 1, b3: 1 });
    expect(compensator.requests.get('b3')).toHaveLength(1);
    expect(compensator.requests.get('b1')).toHaveLength(1);
    const [inFlight, resent] = compensator.requests.get('b2')!;
    expect(resent).toBe(inFlight);
    const events = await second.runtime.sessions.events(caller, 'trip', 1, 1000);
    expect(events.filter((e) => e.type === 'CompensationApplied')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'RollbackCompleted')).toHaveLength(1);
    // Done: the lease row is gone.
    expect((await second.store.pool.query('SELECT 1 FROM rewind.rollback_leases')).rowCount).toBe(0);
  });
});
