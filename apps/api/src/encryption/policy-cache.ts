import { LRUCache } from 'lru-cache';
import type { EncryptionPolicies, EncryptionPolicyStore } from '@rewind/tenancy';

/**
 * A tenant's encryption policies, reread at most once a second: writes need them on every
 * request, and a policy changed in another process applies within a second.
 */
export class PolicyCache {
  private readonly entries: LRUCache<string, EncryptionPolicies>;

  constructor(
    private readonly store: EncryptionPolicyStore,
    ttlMs = 1000,
  ) {
    // ttlResolution 0: read the clock on each look; the default (1 ms) caches it with a timer per millisecond of traffic.
    this.entries = new LRUCache({ max: 10_000, ttl: ttlMs, ttlResolution: 0 });
  }

  async get(tenantId: string): Promise<EncryptionPolicies> {
    const hit = this.entries.get(tenantId);
    if (hit) return hit;
    const policies = await this.store.policies(tenantId);
    this.entries.set(tenantId, policies);
    return policies;
  }

  forget(tenantId: string): void {
    this.entries.delete(tenantId);
  }
}
