import { storedIdempotencyKey } from '../idempotency-key';
import {
  checkExpectedVersion,
  IdempotencyKeyReusedError,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type IdempotencyRecord,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type Snapshot,
  type SnapshotAndTail,
  type SnapshotSegment,
  type StoredEvent,
  type StreamSummary,
} from '../event-store';

/** A complete event store in process memory: for unit tests and library use without persistence. */
export class InMemoryEventStore implements EventStore {
  private readonly log: StoredEvent[] = [];
  private readonly streams = new Map<string, { events: StoredEvent[]; createdAt: string; updatedAt: string }>();
  private readonly idempotency = new Map<string, IdempotencyRecord>();
  private readonly snapshots = new Map<string, Snapshot[]>();
  private readonly segments = new Map<string, Map<string, string>>();
  private readonly eventIds = new Set<string>();

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const claim = options.idempotency;
    if (claim) {
      const existing = this.idempotency.get(`${claim.scope}\u0000${storedIdempotencyKey(claim.key)}`);
      if (existing) {
        if (existing.fingerprint !== claim.fingerprint) throw new IdempotencyKeyReusedError(claim.key);
        return { streamId: existing.streamId, firstVersion: existing.firstVersion, lastVersion: existing.lastVersion, duplicate: true };
      }
    }
    const stream = this.streams.get(streamId);
    const current = stream?.events.length ?? 0;
    checkExpectedVersion(streamId, options.expectedVersion, current);
    const ids = events.map((e) => e.eventId);
    if (new Set(ids).size !== ids.length || ids.some((id) => this.eventIds.has(id))) {
      throw new Error(`Duplicate event id in append to ${streamId}: event ids are unique across the store.`);
    }
    ids.forEach((id) => this.eventIds.add(id));
    const now = new Date().toISOString();
    const target = stream ?? { events: [], createdAt: now, updatedAt: now };
    const stored = events.map((event, i) => ({
      ...structuredClone(event),
      streamId,
      streamVersion: current + i + 1,
      globalPosition: this.log.length + i + 1,
    }));
    target.events.push(...stored);
    target.updatedAt = now;
    this.streams.set(streamId, target);
    this.log.push(...stored);
    const result = { streamId, firstVersion: current + 1, lastVersion: current + events.length, duplicate: false };
    if (claim) this.idempotency.set(`${claim.scope}\u0000${storedIdempotencyKey(claim.key)}`, { ...claim, key: storedIdempotencyKey(claim.key), ...result });
    return result;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const from = options.fromVersion ?? 1;
    const to = options.toVersion ?? Number.MAX_SAFE_INTEGER;
    const selected = (this.streams.get(streamId)?.events ?? []).filter((e) => e.streamVersion >= from && e.streamVersion <= to);
    return structuredClone(options.limit === undefined ? selected : selected.slice(0, options.limit));
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.streams.get(streamId)?.events.length ?? 0;
  }

  async readAll(options: ReadAllOptions): Promise<StoredEvent[]> {
    return structuredClone(this.log.slice(options.after, options.after + options.limit));
  }

  async lastPosition(): Promise<number> {
    return this.log.length;
  }

  async listStreams(options: { prefix: string; after?: string; limit: number }): Promise<StreamSummary[]> {
    return [...this.streams.entries()]
      .filter(([id]) => id.startsWith(options.prefix) && (options.after === undefined || id > options.after))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .slice(0, options.limit)
      .map(([streamId, s]) => ({ streamId, version: s.events.length, createdAt: s.createdAt, updatedAt: s.updatedAt }));
  }

  async findIdempotency(scope: string, key: string): Promise<IdempotencyRecord | null> {
    return this.idempotency.get(`${scope}\u0000${storedIdempotencyKey(key)}`) ?? null;
  }

  async saveSnapshot(snapshot: Snapshot, segments: readonly SnapshotSegment[] = []): Promise<void> {
    const stored = this.segments.get(snapshot.streamId) ?? new Map<string, string>();
    for (const segment of segments) if (!stored.has(segment.id)) stored.set(segment.id, segment.data);
    this.segments.set(snapshot.streamId, stored);
    const list = (this.snapshots.get(snapshot.streamId) ?? []).filter((s) => s.reducerVersion !== snapshot.reducerVersion || s.version !== snapshot.version);
    list.push(structuredClone(snapshot));
    this.snapshots.set(snapshot.streamId, list);
  }

  async loadSnapshotAndTail(streamId: string, reducerVersion: number, version: number): Promise<SnapshotAndTail> {
    const snapshot = await this.loadSnapshot(streamId, reducerVersion, version);
    return { snapshot, events: await this.readStream(streamId, { fromVersion: (snapshot?.version ?? 0) + 1, toVersion: version }) };
  }

  async loadSnapshotSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const stored = this.segments.get(streamId);
    const found = new Map<string, string>();
    for (const id of ids) {
      const data = stored?.get(id);
      if (data !== undefined) found.set(id, data);
    }
    return found;
  }

  async loadSnapshot(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null> {
    const candidates = (this.snapshots.get(streamId) ?? []).filter((s) => s.reducerVersion === reducerVersion && s.version <= atOrBefore);
    const best = candidates.sort((a, b) => b.version - a.version)[0];
    return best ? structuredClone(best) : null;
  }

  async close(): Promise<void> {}
}
