import { LRUCache } from 'lru-cache';
import type { EncryptionPolicies, EncryptionPolicyStore } from '@rewind/tenancy';

/**
 * A tenant's encryption policies, reread at most once a second: writes need them on every
 * request, and a policy changed in another process applies within a second. Concurrent requests
 * that find the entry expired share one read (32 writers asked it 32 times a second otherwise).
 */
export class PolicyCache {
  private readonly entries: LRUCache<string, EncryptionPolicies>;

  constructor(
    private readonly store: EncryptionPolicyStore,
    ttlMs = 1000,
  ) {
    // ttlResolution 0: read the clock on each look; the default (1 ms) caches it with a timer per millisecond of traffic.
    this.entries = new LRUCache({ max: 10_000, ttl: ttlMs, ttlResolution: 0, fetchMethod: (tenantId) => this.store.policies(tenantId) });
  }

  async get(tenantId: string): Promise<EncryptionPolicies> {
    return (await this.entries.fetch(tenantId))!;
  }

  forget(tenantId: string): void {
    this.entries.delete(tenantId);
  }
}
