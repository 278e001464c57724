/**
 * Where a subscriber of the global log remembers how far it got, plus a lease so that
 * only one of several workers publishes at a time (the others stand by and take over
 * when the lease expires). Saving never moves a checkpoint back, so two publishers
 * overlapping for a moment cause duplicates, never gaps.
 */
export interface CheckpointStore {
  /** The last global position handled (0 when none). */
  load(name: string): Promise<number>;
  /** Moves the checkpoint forward to `position` (a smaller value is ignored). */
  save(name: string, position: number): Promise<void>;
  /**
   * Takes or renews the lease on `name` for `owner` until now + ttlMs. False when another
   * owner holds a lease that has not expired.
   */
  acquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up (when held by `owner`) so that a standby takes over at once. */
  release(name: string, owner: string): Promise<void>;
  close(): Promise<void>;
}

interface Entry {
  position: number;
  owner: string | null;
  leaseUntil: number;
}

export class InMemoryCheckpointStore implements CheckpointStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  private entry(name: string): Entry {
    let entry = this.entries.get(name);
    if (!entry) {
      entry = { position: 0, owner: null, leaseUntil: 0 };
      this.entries.set(name, entry);
    }
    return entry;
  }

  async load(name: string): Promise<number> {
    return this.entries.get(name)?.position ?? 0;
  }

  async save(name: string, position: number): Promise<void> {
    const entry = this.entry(name);
    entry.position = Math.max(entry.position, position);
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const entry = this.entry(name);
    const now = this.now();
    if (entry.owner !== null && entry.owner !== owner && entry.leaseUntil >= now) return false;
    entry.owner = owner;
    entry.leaseUntil = now + ttlMs;
    return true;
  }

  async release(name: string, owner: string): Promise<void> {
    const entry = this.entries.get(name);
    if (entry?.owner === owner) {
      entry.owner = null;
      entry.leaseUntil = 0;
    }
  }

  async close(): Promise<void> {}
}
