import { ANY, BACKWARDS, END, FORWARDS, START, StreamNotFoundError, jsonEvent, type EventStoreDBClient, type RecordedEvent } from '@eventstore/db-client';
import type { StreamSummary } from '../event-store';

/**
 * The port's streams, for `listStreams`: the server has no listing of streams by prefix
 * without its system projections, so the store keeps a catalogue stream with one
 * `StreamCatalogued` event per port stream, written before the stream's first append (a crash
 * in between leaves an entry for a stream that does not exist, which listing skips; never a
 * stream missing from the list). Each process reads the catalogue's new entries before a
 * listing and keeps the ids sorted in memory.
 */
export class StreamCatalogue {
  private readonly ids: string[] = [];
  private readonly known = new Set<string>();
  private readUpTo = -1n;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly catalogueStream: string,
    private readonly logStreamOf: (streamId: string) => string,
  ) {}

  /** Records `streamId` unless this process already knows it is catalogued. */
  async ensure(streamId: string): Promise<void> {
    if (this.known.has(streamId)) return;
    await this.client.appendToStream(this.catalogueStream, jsonEvent({ type: 'StreamCatalogued', data: { streamId } }), {
      expectedRevision: ANY,
      requiresLeader: true,
    });
    this.remember(streamId);
  }

  /** Marks a stream known to exist (it was appended to, so it was catalogued before). */
  remember(streamId: string): void {
    if (this.known.has(streamId)) return;
    this.known.add(streamId);
    // Sorted insert: the catalogue is read in append order, listings want id order.
    let low = 0;
    let high = this.ids.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.ids[mid]! < streamId) low = mid + 1;
      else high = mid;
    }
    this.ids.splice(low, 0, streamId);
  }

  /** Every catalogued port stream id, sorted. */
  async all(): Promise<readonly string[]> {
    await this.refresh();
    return [...this.ids];
  }

  async list(options: { prefix: string; after?: string; limit: number }): Promise<StreamSummary[]> {
    await this.refresh();
    const candidates = this.ids.filter((id) => id.startsWith(options.prefix) && (options.after === undefined || id > options.after));
    const found: StreamSummary[] = [];
    // Two reads per stream (its first and last event), at most 64 streams at a time.
    const batch = Math.min(options.limit, 64);
    for (let at = 0; at < candidates.length && found.length < options.limit; at += batch) {
      const page = await Promise.all(candidates.slice(at, at + batch).map((id) => this.summary(id)));
      for (const summary of page) if (summary && found.length < options.limit) found.push(summary);
    }
    return found;
  }

  private async refresh(): Promise<void> {
    try {
      for await (const resolved of this.client.readStream<{ type: 'StreamCatalogued'; data: { streamId: string } }>(this.catalogueStream, {
        fromRevision: this.readUpTo < 0n ? START : this.readUpTo + 1n,
        direction: FORWARDS,
        requiresLeader: true,
      })) {
        if (!resolved.event) continue;
        this.readUpTo = resolved.event.revision;
        this.remember(resolved.event.data.streamId);
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
  }

  /** Version and times of a stream; null when it has no events (its first append never happened). */
  private async summary(streamId: string): Promise<StreamSummary | null> {
    const [first, last] = await Promise.all([this.edge(streamId, START), this.edge(streamId, END)]);
    if (!first || !last) return null;
    return { streamId, version: Number(last.revision) + 1, createdAt: first.created.toISOString(), updatedAt: last.created.toISOString() };
  }

  private async edge(streamId: string, from: typeof START | typeof END): Promise<RecordedEvent | null> {
    try {
      for await (const resolved of this.client.readStream(this.logStreamOf(streamId), {
        fromRevision: from,
        direction: from === START ? FORWARDS : BACKWARDS,
        maxCount: 1,
        requiresLeader: true,
      })) {
        if (resolved.event) return resolved.event;
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return null;
  }
}
