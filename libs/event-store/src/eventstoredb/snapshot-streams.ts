import { ANY, BACKWARDS, END, NO_STREAM, StreamNotFoundError, WrongExpectedVersionError, binaryEvent, type EventStoreDBClient } from '@eventstore/db-client';
import type { Snapshot, SnapshotSegment } from '../event-store';
import type { PruneSnapshotsOptions, PruneSnapshotsResult } from '../snapshot-pruning';
import { decodeSegment, decodeSnapshot, encodeSegment, encodeSnapshot } from '../snapshot-codec';
import { planSnapshotPruning, type StoredSnapshotInfo } from './snapshot-pruning-plan';
import type { StreamNames } from './stream-names';

interface SnapshotMetadata {
  version: number;
  reducerVersion: number;
  deflated: boolean;
}

/** What the snapshot codec gave: JSON text, or deflated bytes (flagged, since on the server both are bytes). */
const stored = (encoded: string | Buffer): { data: Uint8Array; deflated: boolean } =>
  typeof encoded === 'string' ? { data: Buffer.from(encoded, 'utf8'), deflated: false } : { data: encoded, deflated: true };

const decode = (data: Uint8Array, deflated: boolean): unknown => {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return decodeSnapshot(deflated ? buffer : buffer.toString('utf8'));
};

/**
 * Snapshots as events of a stream beside each port stream (`<ns>-snapshots/<streamId>`),
 * newest last: a restore reads it backwards and stops at the first fit, which for the current
 * state is the last event. Segments are one stream each (`<ns>-segment/<streamId>/<id>`),
 * written with "no stream" as the expected revision, so a second write of an id keeps the
 * first. A snapshot is written after its segments, so it is never visible without them; a
 * crash in between leaves segments no snapshot refers to (never read).
 */
export class SnapshotStreams {
  constructor(
    private readonly client: EventStoreDBClient,
    private readonly names: StreamNames,
  ) {}

  async save(snapshot: Snapshot, segments: readonly SnapshotSegment[]): Promise<void> {
    await Promise.all(segments.map((segment) => this.saveSegment(snapshot.streamId, segment)));
    const { data, deflated } = stored(encodeSnapshot(snapshot.state ?? null));
    const metadata: SnapshotMetadata = { version: snapshot.version, reducerVersion: snapshot.reducerVersion, deflated };
    await this.client.appendToStream(this.names.snapshots(snapshot.streamId), binaryEvent({ type: 'Snapshot', data, metadata: { ...metadata } }), {
      expectedRevision: ANY,
      requiresLeader: true,
    });
  }

  async load(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null> {
    try {
      for await (const resolved of this.client.readStream(this.names.snapshots(streamId), { fromRevision: END, direction: BACKWARDS, requiresLeader: true })) {
        const event = resolved.event;
        if (!event || event.isJson) continue;
        const m = event.metadata as SnapshotMetadata | undefined;
        if (m?.reducerVersion === reducerVersion && m.version <= atOrBefore)
          return { streamId, version: m.version, reducerVersion, state: decode(event.data, m.deflated) };
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return null;
  }

  async loadSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    await Promise.all(
      ids.map(async (id) => {
        try {
          for await (const resolved of this.client.readStream(this.names.segment(streamId, id), { maxCount: 1, requiresLeader: true })) {
            if (resolved.event && !resolved.event.isJson) found.set(id, decodeSegment(Buffer.from(resolved.event.data)));
          }
        } catch (error) {
          if (!(error instanceof StreamNotFoundError)) throw error;
        }
      }),
    );
    return found;
  }

  /**
   * Retention (`rewind retention snapshots`): per stream, truncates the snapshot stream before
   * the oldest of its newest `keep` (the server's `$tb`; it removes them at its next scavenge)
   * and deletes the segments only those referred to. Segments no snapshot ever referred to (a
   * crash between a segment and its snapshot) are not found: the server lists no streams.
   */
  async prune(streamIds: readonly string[], options: PruneSnapshotsOptions): Promise<PruneSnapshotsResult> {
    const result: PruneSnapshotsResult = { streams: 0, snapshotsDeleted: 0, segmentsDeleted: 0, bytesReclaimed: 0 };
    for (const streamId of streamIds) {
      const plan = planSnapshotPruning(await this.stored(streamId, options.referencedSegments), options.keep);
      if (plan.truncateBefore === null) continue;
      const segmentBytes = await Promise.all(plan.segments.map((id) => this.segmentBytes(streamId, id)));
      result.streams++;
      result.snapshotsDeleted += plan.removed.length;
      result.segmentsDeleted += segmentBytes.filter((b) => b !== null).length;
      result.bytesReclaimed += plan.removed.reduce((n, s) => n + s.bytes, 0) + segmentBytes.reduce<number>((n, b) => n + (b ?? 0), 0);
      if (options.dryRun) continue;
      const name = this.names.snapshots(streamId);
      const { metadata } = await this.client.getStreamMetadata(name, { requiresLeader: true });
      await this.client.setStreamMetadata(name, { ...metadata, truncateBefore: Number(plan.truncateBefore) }, { requiresLeader: true });
      for (const [i, id] of plan.segments.entries()) {
        if (segmentBytes[i] !== null) await this.client.deleteStream(this.names.segment(streamId, id), { requiresLeader: true });
      }
    }
    return result;
  }

  private async stored(streamId: string, referencedSegments: (state: unknown) => string[]): Promise<StoredSnapshotInfo[]> {
    const found: StoredSnapshotInfo[] = [];
    try {
      for await (const resolved of this.client.readStream(this.names.snapshots(streamId), { requiresLeader: true })) {
        const event = resolved.event;
        if (!event || event.isJson) continue;
        const m = event.metadata as SnapshotMetadata | undefined;
        if (typeof m?.version !== 'number') continue;
        found.push({
          revision: event.revision,
          version: m.version,
          reducerVersion: m.reducerVersion,
          bytes: event.data.byteLength,
          segments: referencedSegments(decode(event.data, m.deflated)),
        });
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return found;
  }

  /** The stored size of a segment, or null when it is not stored. */
  private async segmentBytes(streamId: string, id: string): Promise<number | null> {
    try {
      for await (const resolved of this.client.readStream(this.names.segment(streamId, id), { maxCount: 1, requiresLeader: true })) {
        if (resolved.event && !resolved.event.isJson) return resolved.event.data.byteLength;
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return null;
  }

  private async saveSegment(streamId: string, segment: SnapshotSegment): Promise<void> {
    try {
      await this.client.appendToStream(this.names.segment(streamId, segment.id), binaryEvent({ type: 'SnapshotSegment', data: encodeSegment(segment.data) }), {
        expectedRevision: NO_STREAM,
        requiresLeader: true,
      });
    } catch (error) {
      // Ids name contents: a segment already stored is the same one.
      if (!(error instanceof WrongExpectedVersionError)) throw error;
    }
  }
}
