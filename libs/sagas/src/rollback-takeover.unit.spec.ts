import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import { InMemoryEventStore } from '@rewind/event-store/in-memory';
import { SubscriptionHub } from '@rewind/event-store/subscriptions';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { InMemoryRollbackLeaseStore } from './leases/in-memory-rollback-lease-store';
import { createSessionRuntime } from './session-runtime';

const caller = { tenantId: 't', actor: 'tester' };
const LEASE_MS = 300;

/** A session with one booking, and its undo asked for by another process (whose commits do not reach this one's saga). */
async function undoAskedElsewhere(store: InMemoryEventStore, sessionId: string, target = 'cancel'): Promise<string> {
  const other = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }), { compensationEnabled: true });
  await other.startSession(caller, { sessionId });
  await other.execute(caller, sessionId, {
    type: 'StartToolCall',
    toolCallId: 'c',
    tool: 'book',
    input: {},
    effect: { kind: 'reversible', compensation: { channel: 'inline', target }, retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 1000 } },
  });
  await other.execute(caller, sessionId, { type: 'CompleteToolCall', toolCallId: 'c', output: {} });
  return (await other.execute(caller, sessionId, { type: 'MoveHead', kind: 'undo' })).rollbackId!;
}

function startProcess(store: InMemoryEventStore, leases: InMemoryRollbackLeaseStore) {
  const hub = new SubscriptionHub(store, { idleDelayMs: 20 });
  const runtime = createSessionRuntime(store, { snapshotEvery: 0, bus: new InProcessMessageBus(), hub, leases, rollbackLeaseMs: LEASE_MS });
  const undone: string[] = [];
  runtime.inline.register('cancel', (r) => void undone.push(r.sessionId));
  runtime.inline.register('refuse', () => {
    throw new Error('no such booking');
  });
  runtime.rollbacks!.start();
  runtime.takeover!.start();
  const stop = async () => {
    await runtime.takeover!.stop();
    await runtime.rollbacks!.stop();
    await runtime.saga.stop();
  };
  return { runtime, undone, stop };
}

describe('RollbackTakeover: rollbacks whose holder died are carried on by a live process', () => {
  it('leaves a rollback to the live process holding its lease, and takes it over once that lease runs out', async () => {
    const store = new InMemoryEventStore();
    const leases = new InMemoryRollbackLeaseStore();
    const rollbackId = await undoAskedElsewhere(store, 'trip');
    // Its process took the lease, then died: nobody renews it.
    await leases.acquire('dead-process', [{ tenantId: 't', rollbackId }], 4 * LEASE_MS);
    const live = startProcess(store, leases);
    await sleep(2 * LEASE_MS);
    expect(live.undone).toEqual([]);
    await vi.waitFor(() => expect(live.undone).toEqual(['trip']), { timeout: 5000 });
    await vi.waitFor(async () => expect((await live.runtime.sessions.getState(caller, 'trip')).rollbacks[rollbackId]!.status).toBe('completed'));
    expect(live.runtime.takeover).not.toBeNull();
    await live.stop();
  });

  it('takes a rollback left in progress over at start-up when no live process holds it, and leaves one needing attention to an operator', async () => {
    const store = new InMemoryEventStore();
    const leases = new InMemoryRollbackLeaseStore();
    await undoAskedElsewhere(store, 'free');
    const failing = await undoAskedElsewhere(store, 'broken', 'refuse');
    const live = startProcess(store, leases);
    await vi.waitFor(() => expect(live.undone).toEqual(['free']), { timeout: 2000 });
    await vi.waitFor(async () => expect((await live.runtime.sessions.getState(caller, 'broken')).rollbacks[failing]!.status).toBe('needs_attention'));
    // Not taken again and again while it waits for an operator: no lease is left, and the compensation was tried once.
    const getState = vi.spyOn(live.runtime.sessions, 'getState');
    await sleep(3 * LEASE_MS);
    expect(getState).not.toHaveBeenCalled();
    expect(await leases.acquire('someone', [{ tenantId: 't', rollbackId: failing }], LEASE_MS)).toHaveLength(1);
    await live.stop();
  });

  it('follows a rollback another live process carries out instead of running it too', async () => {
    const store = new InMemoryEventStore();
    const leases = new InMemoryRollbackLeaseStore();
    const rollbackId = await undoAskedElsewhere(store, 'trip');
    await leases.acquire('busy-process', [{ tenantId: 't', rollbackId }], 60_000);
    const live = startProcess(store, leases);
    const started = Date.now();
    await live.runtime.saga.follow('t', 'trip', rollbackId, 400);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(live.undone).toEqual([]);
    expect((await live.runtime.sessions.getState(caller, 'trip')).rollbacks[rollbackId]!.status).toBe('in_progress');
    await live.stop();
  });
});
