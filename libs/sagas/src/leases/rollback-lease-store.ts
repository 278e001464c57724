/** The rollback a lease is on: rollback ids are unique within a tenant. */
export interface RollbackRef {
  tenantId: string;
  rollbackId: string;
}

/** One string per rollback, for maps and sets. */
export const rollbackKey = (ref: RollbackRef): string => `${ref.tenantId}\u0000${ref.rollbackId}`;

/**
 * Where the leases on unfinished rollbacks live, so that each has one holder at a time among
 * the processes of a deployment (PostgreSQL: a table every process shares). A lease lasts
 * `ttlMs` from its last renewal by the store's own clock; an expired lease is free to take,
 * which is how a live process takes over the rollbacks of one that died.
 */
export interface RollbackLeaseStore {
  /**
   * Takes (or renews, when `holder` has it already) the lease of each rollback that no other
   * holder has unexpired; resolves to those `holder` now holds.
   */
  acquire(holder: string, rollbacks: readonly RollbackRef[], ttlMs: number): Promise<RollbackRef[]>;
  /**
   * Extends the leases `holder` still has (expired or not, as long as nobody took them over);
   * resolves to those. A lease that another holder took stays lost.
   */
  renew(holder: string, rollbacks: readonly RollbackRef[], ttlMs: number): Promise<RollbackRef[]>;
  /** Gives the leases up (those `holder` has), so that another process may take them at once. */
  release(holder: string, rollbacks: readonly RollbackRef[]): Promise<void>;
}

/** The same rollbacks once each, in one order (so that concurrent takers lock rows in the same order). */
export function distinctRollbacks(rollbacks: readonly RollbackRef[]): RollbackRef[] {
  const byKey = new Map(rollbacks.map((ref) => [rollbackKey(ref), { tenantId: ref.tenantId, rollbackId: ref.rollbackId }]));
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ref]) => ref);
}
