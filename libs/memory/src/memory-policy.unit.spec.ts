import { describe, expect, it } from 'vitest';
import {
  effectivePolicies,
  effectivePolicy,
  InMemoryPolicyStore,
  policyKeyOf,
  type MemoryPolicy,
  type MemoryPolicyStore,
  type PolicyKey,
} from './memory-policy';

/** An in-memory store that counts its reads, with or without `getMany`. */
function countingStore(withGetMany: boolean) {
  const inner = new InMemoryPolicyStore();
  const reads = { get: 0, getMany: 0 };
  const store: MemoryPolicyStore = {
    get: (tenantId, sessionId) => (reads.get++, inner.get(tenantId, sessionId)),
    set: (tenantId, sessionId, policy) => inner.set(tenantId, sessionId, policy),
    ...(withGetMany
      ? { getMany: async (keys: readonly PolicyKey[]) => (reads.getMany++, Promise.all(keys.map((k) => inner.get(k.tenantId, k.sessionId)))) }
      : {}),
  };
  return { store, reads };
}

const sessions = [
  { tenantId: 't1', sessionId: 'a' },
  { tenantId: 't1', sessionId: 'b' },
  { tenantId: 't1', sessionId: 'a' },
  { tenantId: 't2', sessionId: 'a' },
  { tenantId: 't3', sessionId: 'c' },
];

async function seed(store: MemoryPolicyStore): Promise<void> {
  await store.set('t1', undefined, 'none');
  await store.set('t1', 'a', 'persistent');
  await store.set('t2', 'a', 'none');
}

describe('effectivePolicies', () => {
  it.each([true, false])('answers as effectivePolicy does for each session: its own, else its tenant’s, else persistent (getMany: %s)', async (withGetMany) => {
    const { store } = countingStore(withGetMany);
    await seed(store);
    const policies = await effectivePolicies(store, sessions);
    const expected = new Map<string, MemoryPolicy>();
    for (const s of sessions) expected.set(policyKeyOf(s.tenantId, s.sessionId), await effectivePolicy(store, s.tenantId, s.sessionId));
    expect(policies).toEqual(expected);
    expect(Object.fromEntries(policies)).toEqual({
      [policyKeyOf('t1', 'a')]: 'persistent',
      [policyKeyOf('t1', 'b')]: 'none',
      [policyKeyOf('t2', 'a')]: 'none',
      [policyKeyOf('t3', 'c')]: 'persistent',
    });
  });

  it('reads a store that has getMany once, whatever the number of sessions', async () => {
    const { store, reads } = countingStore(true);
    await seed(store);
    await effectivePolicies(store, sessions);
    expect(reads).toEqual({ get: 0, getMany: 1 });
  });

  it('does not read the store for no sessions', async () => {
    const { store, reads } = countingStore(true);
    expect((await effectivePolicies(store, [])).size).toBe(0);
    expect(reads).toEqual({ get: 0, getMany: 0 });
  });

  it('keeps tenants and sessions apart in its keys (no separator in an id makes two keys one)', () => {
    expect(policyKeyOf('t1', 'a')).not.toBe(policyKeyOf('t1a', ''));
  });
});
