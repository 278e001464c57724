import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '@rewind/config';
import { rollbackKey, type RollbackLeaseStore, type RollbackRef } from './rollback-lease-store';

/** REWIND_ROLLBACK_LEASE_MS's default: a dead holder's rollbacks are taken over 6–8 s after its death. */
export const DEFAULT_ROLLBACK_LEASE_MS = 6_000;

export interface RollbackLeasesOptions {
  /** How long a lease lasts without renewal (renewed every third of it). */
  ttlMs?: number;
  /** This process's name in the leases (default host:pid:random, new at each start). */
  holder?: string;
  logger?: Logger;
  /** Tests: this process's clock. */
  now?: () => number;
}

/**
 * The leases this process holds on the rollbacks it carries out, renewed in one statement
 * every third of the lease. Each lease is trusted only until its local deadline (the time the
 * statement that took or renewed it was sent, plus the lease): the database counts its expiry
 * from a later moment, so by this process's clock the lease never outlives its deadline here.
 * A lease that a renewal did not return was taken over: it is lost at once.
 */
export class RollbackLeases {
  readonly holder: string;
  readonly ttlMs: number;
  private readonly now: () => number;
  private readonly held = new Map<string, { ref: RollbackRef; until: number }>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private failing = false;
  private closed = false;

  constructor(
    private readonly store: RollbackLeaseStore,
    private readonly options: RollbackLeasesOptions = {},
  ) {
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.ttlMs = options.ttlMs ?? DEFAULT_ROLLBACK_LEASE_MS;
    this.now = options.now ?? Date.now;
  }

  /** Takes the leases of these rollbacks that no live process holds; resolves to those this process holds now. */
  async take(rollbacks: readonly RollbackRef[]): Promise<RollbackRef[]> {
    if (this.closed || rollbacks.length === 0) return [];
    const sentAt = this.now();
    const taken = await this.store.acquire(this.holder, rollbacks, this.ttlMs);
    if (this.closed) {
      await this.store.release(this.holder, taken).catch(() => undefined);
      return [];
    }
    for (const ref of taken) this.held.set(rollbackKey(ref), { ref, until: sentAt + this.ttlMs });
    this.schedule();
    return taken;
  }

  /** True while this process may act on the rollback: it took the lease and its deadline has not passed. */
  holds(ref: RollbackRef): boolean {
    const lease = this.held.get(rollbackKey(ref));
    return lease !== undefined && this.now() < lease.until;
  }

  /** Gives the lease up (the rollback stopped here): another process may take it at once. */
  async release(ref: RollbackRef): Promise<void> {
    if (!this.held.delete(rollbackKey(ref))) return;
    this.schedule();
    await this.store.release(this.holder, [ref]);
  }

  /** Renews every lease held (the timer calls it every third of the lease); those not returned are lost. */
  async renew(): Promise<void> {
    this.renewing ??= this.renewHeld().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  /** Stops renewing and gives every lease up, so that other processes carry on at once. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
    const refs = [...this.held.values()].map((lease) => lease.ref);
    this.held.clear();
    // Never in the way of the rest of a shutdown: a lease not given up expires by itself.
    await this.store
      .release(this.holder, refs)
      .catch((error: unknown) =>
        this.options.logger?.warn(
          `Could not give up ${refs.length} rollback lease(s) while stopping (${(error as Error).message}); other processes take them over once they expire, within ${this.ttlMs} ms.`,
        ),
      );
  }

  get count(): number {
    return this.held.size;
  }

  private async renewHeld(): Promise<void> {
    const refs = [...this.held.values()].map((lease) => lease.ref);
    if (refs.length === 0) return;
    const sentAt = this.now();
    let renewed: RollbackRef[];
    try {
      renewed = await this.store.renew(this.holder, refs, this.ttlMs);
    } catch (error) {
      // Each lease stays trusted until its deadline; a later renewal that succeeds keeps it.
      if (!this.failing) {
        this.failing = true;
        this.options.logger?.warn(
          `Could not renew this process's ${refs.length} rollback lease(s): ${(error as Error).message}. Retrying every ${Math.round(this.ttlMs / 3)} ms; past its lease (${this.ttlMs} ms) a rollback is left to another process.`,
        );
      }
      return;
    }
    if (this.failing) this.options.logger?.log('Rollback leases renewed again.');
    this.failing = false;
    const kept = new Set(renewed.map(rollbackKey));
    for (const ref of refs) {
      const key = rollbackKey(ref);
      if (!this.held.has(key)) continue; // released meanwhile
      if (kept.has(key)) this.held.set(key, { ref, until: sentAt + this.ttlMs });
      else {
        this.held.delete(key);
        this.options.logger?.warn(`Rollback ${ref.rollbackId}: another process took its lease over; this process stops carrying it out.`);
      }
    }
    this.schedule();
  }

  /** Renews while something is held, and only then (no timer in an idle process). */
  private schedule(): void {
    if (this.held.size > 0 && !this.timer && !this.closed) {
      this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.ttlMs / 3)));
      this.timer.unref();
    } else if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
