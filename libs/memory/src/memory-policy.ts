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
  /**
   * The settings of many keys in one read, in their order (a store over the network implements it:
   * the indexer asks for every session of a batch at once, not two round trips per session).
   */
  getMany?(keys: readonly PolicyKey[]): Promise<(MemoryPolicy | null)[]>;
}

/** A session's setting (`sessionId` given), or its tenant's. */
export interface PolicyKey {
  tenantId: string;
  sessionId?: string;
}

/** The policy in force for a session: its own, else its tenant's, else `persistent`. */
export async function effectivePolicy(store: MemoryPolicyStore, tenantId: string, sessionId: string): Promise<MemoryPolicy> {
  return (await store.get(tenantId, sessionId)) ?? (await store.get(tenantId)) ?? 'persistent';
}

/**
 * The policies in force for many sessions (one read of the store when it has `getMany`), by
 * `policyKeyOf(tenantId, sessionId)`.
 */
export async function effectivePolicies(
  store: MemoryPolicyStore,
  sessions: readonly { tenantId: string; sessionId: string }[],
): Promise<Map<string, MemoryPolicy>> {
  const distinct = [...new Map(sessions.map((s) => [policyKeyOf(s.tenantId, s.sessionId), s])).values()];
  const result = new Map<string, MemoryPolicy>();
  if (distinct.length === 0) return result;
  if (!store.getMany) {
    const policies = await Promise.all(distinct.map((s) => effectivePolicy(store, s.tenantId, s.sessionId)));
    distinct.forEach((s, i) => result.set(policyKeyOf(s.tenantId, s.sessionId), policies[i]!));
    return result;
  }
  const tenants = [...new Set(distinct.map((s) => s.tenantId))];
  const settings = await store.getMany([...distinct, ...tenants.map((tenantId) => ({ tenantId }))]);
  const tenantSetting = new Map(tenants.map((tenantId, i) => [tenantId, settings[distinct.length + i] ?? null]));
  distinct.forEach((s, i) => result.set(policyKeyOf(s.tenantId, s.sessionId), settings[i] ?? tenantSetting.get(s.tenantId) ?? 'persistent'));
  return result;
}

/** The key of a session in `effectivePolicies`' answer. */
export function policyKeyOf(tenantId: string, sessionId: string): string {
  return `${tenantId}\u0000${sessionId}`;
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
