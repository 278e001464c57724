import { distinctRollbacks, rollbackKey, type RollbackLeaseStore, type RollbackRef } from './rollback-lease-store';

/** Leases within one process (tests, and the reference the PostgreSQL store is checked against). */
export class InMemoryRollbackLeaseStore implements RollbackLeaseStore {
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async acquire(holder: string, rollbacks: readonly RollbackRef[], ttlMs: number): Promise<RollbackRef[]> {
    const now = this.now();
    return distinctRollbacks(rollbacks).filter((ref) => {
      const lease = this.leases.get(rollbackKey(ref));
      if (lease && lease.holder !== holder && lease.expiresAt >= now) return false;
      this.leases.set(rollbackKey(ref), { holder, expiresAt: now + ttlMs });
      return true;
    });
  }

  async renew(holder: string, rollbacks: readonly RollbackRef[], ttlMs: number): Promise<RollbackRef[]> {
    const now = this.now();
    return distinctRollbacks(rollbacks).filter((ref) => {
      const lease = this.leases.get(rollbackKey(ref));
      if (lease?.holder !== holder) return false;
      lease.expiresAt = now + ttlMs;
      return true;
    });
  }

  async release(holder: string, rollbacks: readonly RollbackRef[]): Promise<void> {
    for (const ref of rollbacks) {
      if (this.leases.get(rollbackKey(ref))?.holder === holder) this.leases.delete(rollbackKey(ref));
    }
  }
}
