/**
 * An event's seal: its link in its stream's hash chain, written once (by the sealer, shortly
 * after the event commits) and never changed. Kept beside the events, keyed by global position.
 * On SQLite and PostgreSQL only events written before links (see ChainEvent) have seals: newer
 * events carry their link in their own row.
 */
export interface EventSeal {
  position: number;
  streamId: string;
  streamVersion: number;
  /** chainHash(previous seal of the stream, eventContentHash(event)). */
  hash: string;
}

export interface SealStore {
  /** The highest sealed global position (0: none). */
  lastSealedPosition(): Promise<number>;
  /** The latest seal of each of these streams. */
  streamHeads(streamIds: readonly string[]): Promise<Map<string, EventSeal>>;
  /** Writes seals; a seal already written for a position is kept (sealing is deterministic). */
  append(seals: readonly EventSeal[]): Promise<void>;
  /** Seals in global order after `after`, up to `upTo` when given. */
  readSeals(options: { after: number; limit: number; upTo?: number }): Promise<EventSeal[]>;
  /** A stream's seals in version order. */
  readStreamSeals(streamId: string): Promise<EventSeal[]>;
  /** The seals at these positions, by position (positions never sealed are absent). */
  sealsAt(positions: readonly number[]): Promise<Map<number, EventSeal>>;
  /**
   * Runs `work` unless another process is sealing right now (then resolves to null): sealing
   * twice is harmless, only wasted work.
   */
  exclusively<T>(work: () => Promise<T>): Promise<T | null>;
  close(): Promise<void>;
}

/** Seals in memory, for library mode and tests. */
export class InMemorySealStore implements SealStore {
  private readonly byPosition = new Map<number, EventSeal>();
  private running = false;

  async lastSealedPosition() {
    return Math.max(0, ...this.byPosition.keys());
  }

  async streamHeads(streamIds: readonly string[]) {
    const heads = new Map<string, EventSeal>();
    for (const seal of this.byPosition.values()) {
      if (!streamIds.includes(seal.streamId)) continue;
      const head = heads.get(seal.streamId);
      if (!head || head.streamVersion < seal.streamVersion) heads.set(seal.streamId, seal);
    }
    return heads;
  }

  async append(seals: readonly EventSeal[]) {
    for (const seal of seals) if (!this.byPosition.has(seal.position)) this.byPosition.set(seal.position, { ...seal });
  }

  async readSeals({ after, limit, upTo }: { after: number; limit: number; upTo?: number }) {
    return [...this.byPosition.values()]
      .filter((s) => s.position > after && (upTo === undefined || s.position <= upTo))
      .sort((a, b) => a.position - b.position)
      .slice(0, limit);
  }

  async readStreamSeals(streamId: string) {
    return [...this.byPosition.values()].filter((s) => s.streamId === streamId).sort((a, b) => a.streamVersion - b.streamVersion);
  }

  async sealsAt(positions: readonly number[]) {
    return new Map(positions.flatMap((p) => (this.byPosition.has(p) ? [[p, this.byPosition.get(p)!] as const] : [])));
  }

  async exclusively<T>(work: () => Promise<T>) {
    if (this.running) return null;
    this.running = true;
    try {
      return await work();
    } finally {
      this.running = false;
    }
  }

  /** For tests: what an attacker with write access to the seal table could do. */
  raw(): Map<number, EventSeal> {
    return this.byPosition;
  }

  async close() {}
}
