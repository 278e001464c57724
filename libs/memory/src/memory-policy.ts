/**
 * Seed 003's two memory strategies: `persistent` (default) indexes and recalls a session's
 * history; `none` keeps nothing of it in memory (nothing indexed, nothing recalled).
 * Set per tenant and per session; a session's own setting wins over its tenant's.
 */
export type MemoryPolicy = 'persistent' | 'none';

export const MEMORY_POLICIES: readonly MemoryPolicy[] = ['persistent', 'none'];

export interface MemoryPolicyStore {
  /** The setting itself (null when none was set), not the effective policy. */
  get(tenantId: string, sessionId?: string): Promise<MemoryPolicy | null>;
  set(tenantId: string, sessionId: string | undefined, policy: MemoryPolicy): Promise<void>;
}

/** The policy in force for a session: its own, else its tenant's, else `persistent`. */
export async function effectivePolicy(store: MemoryPolicyStore, tenantId: string, sessionId: string): Promise<MemoryPolicy> {
  return (await store.get(tenantId, sessionId)) ?? (await store.get(tenantId)) ?? 'persistent';
}

export class InMemoryPolicyStore implements MemoryPolicyStore {
  private readonly policies = new Map<string, MemoryPolicy>();

  async get(tenantId: string, sessionId?: string): Promise<MemoryPolicy | null> {
    return this.policies.get(JSON.stringify([tenantId, sessionId ?? null])) ?? null;
  }

  async set(tenantId: string, sessionId: string | undefined, policy: MemoryPolicy): Promise<void> {
    this.policies.set(JSON.stringify([tenantId, sessionId ?? null]), policy);
  }
}
