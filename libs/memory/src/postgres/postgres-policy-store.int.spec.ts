import { createHash } from 'node:crypto';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { effectivePolicies, effectivePolicy, policyKeyOf } from '../memory-policy';
import { memoryMigrations } from './migrations';
import { PostgresPolicyStore } from './postgres-policy-store';

/**
 * A released migration is frozen: these are the SHA-256 digests of the SQL each generates for
 * the default schema; a change to the schema is a new migration, never a new digest for an old one.
 */
const RELEASED: Record<number, { name: string; sha256: string }> = {
  1: { name: 'memory policies', sha256: '4c7e42b044a83e39302478dfb60dfe05c0fc938a0d3e78b4c25c1921d8d6af19' },
  2: { name: 'memory index', sha256: '1e87ec780bd7e3530227e5008077b367f969ce8cb7c111639c889e0d7b5d315b' },
};

describe('memory migrations', () => {
  it('are numbered 1, 2, 3, ... and released ones generate exactly the SQL they were released with', () => {
    const all = memoryMigrations('"rewind"');
    expect(all.map((m) => m.version)).toEqual(all.map((_, i) => i + 1));
    for (const m of all) {
      expect({ version: m.version, name: m.name, sha256: createHash('sha256').update(m.sql).digest('hex') }).toEqual({
        version: m.version,
        ...RELEASED[m.version],
      });
    }
    for (const m of memoryMigrations('"some_schema"')) expect(m.sql).not.toContain('"rewind"');
  });
});

// The real server: an API process and a worker are two pools on the same database.
describe('PostgresPolicyStore', () => {
  let db: TestDatabase;
  let api: Pool;
  let worker: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('rewind_memory_policies');
    api = new Pool({ connectionString: db.url, max: 3 });
    worker = new Pool({ connectionString: db.url, max: 3 });
  });
  afterAll(async () => {
    await api?.end();
    await worker?.end();
    await db?.drop();
  });

  it('is shared by every process: what the API sets, the worker reads (session over tenant over the default)', async () => {
    // Both open the table at once on first use: the advisory lock lets one create it.
    const stores = Array.from({ length: 4 }, (_, i) => new PostgresPolicyStore(i % 2 ? worker : api));
    expect(await Promise.all(stores.map((s) => s.get('t1')))).toEqual([null, null, null, null]);
    const [fromApi, fromWorker] = [new PostgresPolicyStore(api), new PostgresPolicyStore(worker)];
    await fromApi.set('t1', undefined, 'none');
    await fromApi.set('t1', 's1', 'persistent');
    expect(await fromWorker.get('t1')).toBe('none');
    expect(await fromWorker.get('t1', 's1')).toBe('persistent');
    expect(await effectivePolicy(fromWorker, 't1', 's1')).toBe('persistent');
    expect(await effectivePolicy(fromWorker, 't1', 's2')).toBe('none');
    expect(await effectivePolicy(fromWorker, 't2', 's1')).toBe('persistent');
    await fromApi.set('t1', 's1', 'none');
    expect(await fromWorker.get('t1', 's1')).toBe('none');
    const { rows } = await api.query(`SELECT version, name FROM rewind.memory_migrations ORDER BY version`);
    expect(rows).toEqual([
      { version: 1, name: 'memory policies' },
      { version: 2, name: 'memory index' },
    ]);
  });

  it('reads many keys in one round trip (getMany), each as get reads it, and effectivePolicies agrees with effectivePolicy', async () => {
    const store = new PostgresPolicyStore(api, 'many_keys');
    await store.set('t1', undefined, 'none');
    await store.set('t1', 's1', 'persistent');
    await store.set('t2', 's1', 'none');
    const keys = [
      { tenantId: 't1' },
      { tenantId: 't1', sessionId: 's1' },
      { tenantId: 't1', sessionId: 's2' },
      { tenantId: 't2', sessionId: 's1' },
      { tenantId: 't3' },
    ];
    const one = await Promise.all(keys.map((k) => store.get(k.tenantId, k.sessionId)));
    expect(one).toEqual(['none', 'persistent', null, 'none', null]);
    let queries = 0;
    const counted = new Proxy(api, {
      get: (target, p) =>
        p === 'query' ? (...args: unknown[]) => (queries++, (target.query as (...a: unknown[]) => unknown)(...args)) : Reflect.get(target, p),
    });
    const countedStore = new PostgresPolicyStore(counted, 'many_keys');
    expect(await countedStore.getMany(keys)).toEqual(one);
    const sessions = ['s1', 's2', 's3'].flatMap((sessionId) => ['t1', 't2', 't3'].map((tenantId) => ({ tenantId, sessionId })));
    queries = 0;
    const policies = await effectivePolicies(countedStore, sessions);
    expect(queries).toBe(1);
    for (const s of sessions) expect(policies.get(policyKeyOf(s.tenantId, s.sessionId))).toBe(await effectivePolicy(store, s.tenantId, s.sessionId));
    expect(await store.getMany([])).toEqual([]);
  });

  it('keeps schemas apart and refuses a schema name it would have to quote', async () => {
    const other = new PostgresPolicyStore(api, 'tenant_b_memory');
    await other.set('t1', undefined, 'persistent');
    expect(await other.get('t1')).toBe('persistent');
    expect(await new PostgresPolicyStore(api).get('t1')).toBe('none');
    expect(() => new PostgresPolicyStore(api, 'Bad"Name')).toThrow(/not a valid schema name/);
    // The table refuses a policy that is not one (no caller can send one: the API validates first).
    await expect(api.query(`INSERT INTO rewind.memory_policies (tenant_id, session_id, policy) VALUES ('t9', '', 'sometimes')`)).rejects.toThrow(
      /memory_policies_policy_ck/,
    );
  });
});
