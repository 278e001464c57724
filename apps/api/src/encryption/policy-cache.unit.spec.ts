import { describe, expect, it } from 'vitest';
import type { EncryptionPolicies, EncryptionPolicyStore } from '@rewind/tenancy';
import { PolicyCache } from './policy-cache';

/** A store that counts its reads and answers each after a tick, so that requests overlap. */
function countingStore(): EncryptionPolicyStore & { reads: number } {
  const store = {
    reads: 0,
    setTool: async () => {},
    setMemoryKey: async () => {},
    async policies(tenantId: string): Promise<EncryptionPolicies> {
      store.reads++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { tools: { [`${tenantId}-tool`]: { input: ['card'], output: [] } }, memoryKeys: [] };
    },
  };
  return store;
}

describe('PolicyCache', () => {
  it('gives concurrent requests of an expired or missing entry one read of the store, and rereads after the TTL or a forget', async () => {
    const store = countingStore();
    const cache = new PolicyCache(store, 50);
    const answers = await Promise.all(Array.from({ length: 32 }, () => cache.get('acme')));
    expect(store.reads).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toEqual(await store.policies('acme'));
    store.reads = 0;
    await cache.get('acme');
    expect(store.reads).toBe(0);
    await cache.get('other');
    expect(store.reads).toBe(1);
    cache.forget('acme');
    await Promise.all([cache.get('acme'), cache.get('acme')]);
    expect(store.reads).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 60));
    await Promise.all([cache.get('acme'), cache.get('acme')]);
    expect(store.reads).toBe(3);
  });
});
