import type { EncryptionPolicies, EncryptionPolicyStore } from '@rewind/tenancy';

/**
 * A tenant's encryption policies, reread at most once a second: writes need them on every
 * request, and a policy changed in another process applies within a second.
 */
export class PolicyCache {
  private readonly entries = new Map<string, { policies: EncryptionPolicies; until: number }>();

  constructor(
    private readonly store: EncryptionPolicyStore,
    private readonly ttlMs = 1000,
  ) {}

  async get(tenantId: string): Promise<EncryptionPolicies> {
    const hit = this.entries.get(tenantId);
    if (hit && hit.until > Date.now()) return hit.policies;
    const policies = await this.store.policies(tenantId);
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(tenantId, { policies, until: Date.now() + this.ttlMs });
    return policies;
  }

  forget(tenantId: string): void {
    this.entries.delete(tenantId);
  }
}
