import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@rewind/event-store/testing/postgres';
import { InMemoryRollbackLeaseStore } from '../leases/in-memory-rollback-lease-store';
import { rollbackKey, type RollbackRef } from '../leases/rollback-lease-store';
import { PostgresRollbackLeaseStore } from './postgres-rollback-lease-store';

const refs: RollbackRef[] = ['t1', 't2'].flatMap((tenantId) => ['s~1', 's~2', 'other~1'].map((rollbackId) => ({ tenantId, rollbackId })));
const keys = (list: readonly RollbackRef[]) => list.map(rollbackKey).sort();
const HOUR = 3_600_000;

describe('PostgresRollbackLeaseStore: one holder per unfinished rollback among processes on one database', () => {
  let db: TestDatabase;
  let pool: Pool;
  let store: PostgresRollbackLeaseStore;

  beforeAll(async () => {
    db = await createTestDatabase('rewind_saga_leases');
    pool = new Pool({ connectionString: db.url, max: 8 });
    // Processes starting at once on a fresh database: the migration runs once, under its lock, and every opener gets a store.
    const opened = await Promise.all(Array.from({ length: 4 }, () => PostgresRollbackLeaseStore.open(pool, 'rewind')));
    store = opened[0]!;
    const { rows } = await pool.query<{ version: number }>('SELECT version FROM rewind.saga_migrations');
    expect(rows.map((r) => r.version)).toEqual([1]);
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const clear = () => pool.query('DELETE FROM rewind.rollback_leases');

  it('takes, renews and releases as the in-memory reference does, over any sequence of calls by three holders', async () => {
    const holder = fc.constantFrom('a', 'b', 'c');
    const some = fc.subarray(refs, { minLength: 1 });
    const call = fc.oneof(
      fc.record({ op: fc.constant('acquire' as const), holder, refs: some }),
      fc.record({ op: fc.constant('renew' as const), holder, refs: some }),
      fc.record({ op: fc.constant('release' as const), holder, refs: some }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 20 }), async (calls) => {
        await clear();
        const reference = new InMemoryRollbackLeaseStore();
        for (const c of calls) {
          if (c.op === 'release') {
            await store.release(c.holder, c.refs);
            await reference.release(c.holder, c.refs);
          } else {
            // An hour: nothing expires during a run; expiry is the next test's.
            expect(keys(await store[c.op](c.holder, c.refs, HOUR))).toEqual(keys(await reference[c.op](c.holder, c.refs, HOUR)));
          }
        }
        const { rows } = await pool.query<{ tenant_id: string; rollback_id: string; holder: string }>(
          'SELECT tenant_id, rollback_id, holder FROM rewind.rollback_leases',
        );
        for (const ref of refs) {
          const row = rows.find((r) => r.tenant_id === ref.tenantId && r.rollback_id === ref.rollbackId);
          expect((await reference.acquire('nobody', [ref], HOUR)).length === 0).toBe(row !== undefined);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('gives each rollback to exactly one of many holders taking it at the same moment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.subarray(refs, { minLength: 1 }), { minLength: 2, maxLength: 6 }), async (wanted) => {
        await clear();
        // Each holder on its own connection of the pool, all at once; overlapping sets in any order (sorted inside: no deadlock).
        const results = await Promise.all(wanted.map((list, i) => store.acquire(`holder-${i}`, [...list].reverse(), HOUR)));
        const taken = results.flatMap((list) => keys(list));
        expect(new Set(taken).size).toBe(taken.length);
        expect(new Set(taken)).toEqual(new Set(wanted.flatMap((list) => keys(list))));
        const { rows } = await pool.query<{ tenant_id: string; rollback_id: string; holder: string }>(
          'SELECT tenant_id, rollback_id, holder FROM rewind.rollback_leases',
        );
        for (const [i, list] of results.entries()) {
          for (const ref of list) expect(rows.find((r) => r.tenant_id === ref.tenantId && r.rollback_id === ref.rollbackId)?.holder).toBe(`holder-${i}`);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('lets another holder take a lease once it expires, and the old holder cannot renew it back', async () => {
    await clear();
    const ref = refs[0]!;
    expect(await store.acquire('a', [ref], 400)).toEqual([ref]);
    expect(await store.acquire('b', [ref], 400)).toEqual([]);
    await sleep(500);
    expect(await store.acquire('b', [ref], 60_000)).toEqual([ref]);
    expect(await store.renew('a', [ref], 60_000)).toEqual([]);
    expect(await store.acquire('a', [ref], 60_000)).toEqual([]);
    // An expired lease nobody took is still its holder's to renew: nobody else acted on the rollback.
    const other = refs[1]!;
    await store.acquire('a', [other], 100);
    await sleep(200);
    expect(await store.renew('a', [other], 60_000)).toEqual([other]);
    expect(await store.acquire('b', [other], 60_000)).toEqual([]);
  });

  it('keeps a lease its holder renews in time for longer than one lease', async () => {
    await clear();
    const ref = refs[2]!;
    await store.acquire('a', [ref], 400);
    for (let i = 0; i < 8; i++) {
      await sleep(130);
      expect(await store.renew('a', [ref], 400)).toEqual([ref]);
      expect(await store.acquire('b', [ref], 400)).toEqual([]);
    }
  });

  it('frees a released lease at once, and only its holder can release it', async () => {
    await clear();
    const ref = refs[3]!;
    await store.acquire('a', [ref], HOUR);
    await store.release('b', [ref]);
    expect(await store.acquire('b', [ref], HOUR)).toEqual([]);
    await store.release('a', [ref]);
    expect(await store.acquire('b', [ref], HOUR)).toEqual([ref]);
    expect((await pool.query('SELECT 1 FROM rewind.rollback_leases')).rowCount).toBe(1);
  });
});
