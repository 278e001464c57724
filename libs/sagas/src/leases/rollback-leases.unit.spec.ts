import { describe, expect, it } from 'vitest';
import { InMemoryRollbackLeaseStore } from './in-memory-rollback-lease-store';
import type { RollbackLeaseStore } from './rollback-lease-store';
import { RollbackLeases } from './rollback-leases';

const ref = { tenantId: 't', rollbackId: 's~1' };

/** A shared store and a clock the test moves; `down` makes this process's calls fail (its database unreachable). */
function setup() {
  let now = 1_000;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const shared = new InMemoryRollbackLeaseStore(clock.now);
  const link = { down: false };
  const through: RollbackLeaseStore = {
    acquire: (...args) => (link.down ? Promise.reject(new Error('connection refused')) : shared.acquire(...args)),
    renew: (...args) => (link.down ? Promise.reject(new Error('connection refused')) : shared.renew(...args)),
    release: (...args) => (link.down ? Promise.reject(new Error('connection refused')) : shared.release(...args)),
  };
  return { clock, shared, link, through };
}

describe('RollbackLeases: the leases one process holds', () => {
  it('holds what it took, and one process at a time holds a rollback', async () => {
    const { clock, shared } = setup();
    const a = new RollbackLeases(shared, { ttlMs: 3000, holder: 'a', now: clock.now });
    const b = new RollbackLeases(shared, { ttlMs: 3000, holder: 'b', now: clock.now });
    expect(await a.take([ref])).toEqual([ref]);
    expect(await b.take([ref])).toEqual([]);
    expect(a.holds(ref)).toBe(true);
    expect(b.holds(ref)).toBe(false);
    await a.close();
  });

  it('trusts a lease it cannot renew only until its deadline, then another process takes it and it stays lost', async () => {
    const { clock, shared, link, through } = setup();
    const a = new RollbackLeases(through, { ttlMs: 3000, holder: 'a', now: clock.now });
    const b = new RollbackLeases(shared, { ttlMs: 3000, holder: 'b', now: clock.now });
    await a.take([ref]);
    link.down = true;
    clock.advance(2000);
    await a.renew(); // fails: the deadline stays where the last successful call put it
    expect(a.holds(ref)).toBe(true);
    clock.advance(1000);
    expect(a.holds(ref)).toBe(false);
    clock.advance(1);
    expect(await b.take([ref])).toEqual([ref]);
    link.down = false;
    await a.renew();
    expect(a.holds(ref)).toBe(false);
    expect(a.count).toBe(0);
    expect(b.holds(ref)).toBe(true);
    await b.close();
  });

  it('keeps a lease it renews in time past any number of leases', async () => {
    const { clock, shared } = setup();
    const a = new RollbackLeases(shared, { ttlMs: 3000, holder: 'a', now: clock.now });
    const b = new RollbackLeases(shared, { ttlMs: 3000, holder: 'b', now: clock.now });
    await a.take([ref]);
    for (let i = 0; i < 10; i++) {
      clock.advance(1000);
      await a.renew();
      expect(a.holds(ref)).toBe(true);
      expect(await b.take([ref])).toEqual([]);
    }
    await a.close();
  });

  it('gives every lease up when closed, so that another process carries on at once, and takes nothing after', async () => {
    const { clock, shared } = setup();
    const a = new RollbackLeases(shared, { ttlMs: 60_000, holder: 'a', now: clock.now });
    const b = new RollbackLeases(shared, { ttlMs: 60_000, holder: 'b', now: clock.now });
    const other = { tenantId: 't', rollbackId: 's~2' };
    await a.take([ref, other]);
    await a.close();
    expect(await b.take([ref, other])).toHaveLength(2);
    expect(await a.take([{ tenantId: 't', rollbackId: 's~3' }])).toEqual([]);
    await b.close();
  });

  it('stops without failing when the database is gone: the leases then expire by themselves', async () => {
    const { clock, shared, link, through } = setup();
    const warnings: string[] = [];
    const a = new RollbackLeases(through, {
      ttlMs: 3000,
      holder: 'a',
      now: clock.now,
      logger: { log: () => undefined, warn: (m) => warnings.push(m), error: () => undefined },
    });
    await a.take([ref]);
    link.down = true;
    await expect(a.close()).resolves.toBeUndefined();
    expect(warnings.join()).toMatch(/expire/);
    expect(await shared.acquire('b', [ref], 3000)).toEqual([]);
    clock.advance(3001);
    expect(await shared.acquire('b', [ref], 3000)).toEqual([ref]);
  });

  it('renews by itself every third of the lease while it holds something', async () => {
    const shared = new InMemoryRollbackLeaseStore();
    const a = new RollbackLeases(shared, { ttlMs: 300, holder: 'a' });
    const b = new RollbackLeases(shared, { ttlMs: 300, holder: 'b' });
    await a.take([ref]);
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await b.take([ref])).toEqual([]);
    }
    expect(a.holds(ref)).toBe(true);
    await a.release(ref);
    expect(await b.take([ref])).toEqual([ref]);
    await b.close();
  });
});
