import { HistoryNotLoaded, type SessionState, type ToolCall } from '@rewind/domain';
import { ConcurrencyError, type EventStore, type StoredEvent } from '@rewind/event-store';
import {
  allMissingSegments,
  hasSealedHistory,
  HistorySource,
  lazyPartsOf,
  materialised,
  plainToolCalls,
  sealChanges,
  segmentsFor,
  segmentsForRecordOrder,
  segmentsToSeal,
  stateOverSegments,
} from './sealed-history-segments';
import { touchedBy, type SegmentCache, type SegmentedHead, type SegmentSizes, type Touched } from './snapshot-segments';

/** Lookups of a reader on a state with views before it reads a whole copy instead. */
const HISTORY_LOOKUPS = 3;

/** A sealed segment a state reads is no longer stored (its snapshot was pruned): the state was stale. */
export class SegmentMissing extends Error {
  override name = 'SegmentMissing';
}

/**
 * Reads sealed history from snapshot segments: for a state restored for a write, as it is needed
 * (the views are the domain's, sealed-history.ts; what to load is sealed-history-segments.ts): the
 * segments a command names before deciding, the ones a decision found missing (`HistoryNotLoaded`),
 * the ones folding reads, and all of them for a whole copy; and all of a snapshot's at once to
 * restore a whole state. It also keeps the segments sealed for a snapshot not written yet, so that
 * the states naming them can read them meanwhile.
 */
export class SealedHistoryLoader {
  /** Segments sealed from states' views whose snapshot is not written yet: read from here meanwhile. */
  private readonly unsaved = new Map<string, readonly unknown[]>();

  constructor(
    private readonly store: EventStore,
    private readonly segmentCache: SegmentCache,
    /** Told, before the load fails, that a segment of `streamId`'s state is gone from the store: the state is stale. */
    private readonly onMissing: (streamId: string, missing: SegmentMissing) => void,
  ) {}

  /** `head`'s state for a write, its sealed history left in the segments, with what folding `tail` reads loaded. */
  async overSegments(streamId: string, head: SegmentedHead, sizes: SegmentSizes, tail: readonly StoredEvent[]): Promise<SessionState> {
    const state = stateOverSegments(head, sizes, new HistorySource(streamId, this.segmentCache, this.unsaved));
    await this.readyToFold(state, tail);
    return state;
  }

  /**
   * A state with views over the segments of `head`, which was just encoded from a whole state (see
   * SessionRepository's `viewsFromEvents`): the segments not stored yet (`unstored`) are read from memory until
   * the snapshot that writes them is (`saved`, with the ids returned). The rest is read from the store as needed.
   */
  viewOf(
    streamId: string,
    head: SegmentedHead,
    sizes: SegmentSizes,
    unstored: readonly { id: string; data: string }[],
  ): { state: SessionState; held: string[] } {
    const held: string[] = [];
    for (const segment of unstored) {
      this.unsaved.set(segment.id, this.segmentCache.add(segment.id, segment.data));
      held.push(segment.id);
    }
    return { state: stateOverSegments(head, sizes, new HistorySource(streamId, this.segmentCache, this.unsaved)), held };
  }

  /**
   * Loads what reading `named` from a state needs (a reader's lookup: the write under way keeps its pins); nothing
   * for a whole state.
   */
  async find(state: SessionState, named: Touched): Promise<void> {
    const source = sourceOf(state);
    if (source) await this.loadSegments(source, segmentsFor(state, named));
  }

  /** The tool call `toolCallId` of `state`, found through the segments' filters (a whole copy only after HISTORY_LOOKUPS tries). */
  async toolCallOf(state: SessionState, toolCallId: string): Promise<ToolCall | undefined> {
    const named = { turnIds: new Set<string>(), toolCallIds: new Set([toolCallId]) };
    for (let attempt = 0; hasSealedHistory(state) && attempt < HISTORY_LOOKUPS; attempt++) {
      await this.find(state, named);
      try {
        return Object.hasOwn(state.path.toolCalls, toolCallId) ? state.path.toolCalls[toolCallId] : undefined;
      } catch (error) {
        // A write on the state released what was loaded between the two: load it again.
        if (!(error instanceof HistoryNotLoaded)) throw error;
      }
    }
    const whole = hasSealedHistory(state) ? await this.materialise(state) : state;
    return Object.hasOwn(whole.path.toolCalls, toolCallId) ? whole.path.toolCalls[toolCallId] : undefined;
  }

  /** Loads what a command names (`named`) and the newest turn before deciding; undefined when all is in memory. */
  prepare(state: SessionState, named: () => Touched): Promise<void> | undefined {
    const source = sourceOf(state);
    if (!source) return undefined;
    source.unpin();
    const wanted = segmentsFor(state, named());
    return wanted.length > 0 ? this.loadSegments(source, wanted).catch(conflictIfMissing(source.streamId)) : undefined;
  }

  /** Loads the segments a decision found missing (`HistoryNotLoaded`), or all of the state's. */
  async loadHistory(state: SessionState, segmentIds: readonly string[] | 'all'): Promise<void> {
    const source = sourceOf(state);
    if (!source) return;
    await this.loadSegments(source, segmentIds === 'all' ? allMissingSegments(state) : segmentIds).catch(conflictIfMissing(source.streamId));
  }

  /** A whole copy of a state whose sealed history is in segments (reads of the whole state). */
  async materialise(state: SessionState): Promise<SessionState> {
    const source = sourceOf(state)!;
    await this.loadSegments(source, allMissingSegments(state));
    const whole = materialised(state);
    // The copy holds what it needs; the cached state keeps only what its next write pins.
    source.unpin();
    return whole;
  }

  /**
   * Loads what folding `events` into a state with sealed history in segments reads (see segmentsFor,
   * segmentsForRecordOrder); nothing for a whole state.
   */
  async readyToFold(state: SessionState, events: readonly StoredEvent[]): Promise<void> {
    const source = sourceOf(state);
    if (!source) return;
    await this.loadSegments(source, segmentsFor(state, touchedBy(events)));
    const forOrder = segmentsForRecordOrder(state, events);
    if (!forOrder) return;
    await this.loadSegments(source, forOrder);
    plainToolCalls(state);
  }

  /**
   * Before a snapshot of a state with sealed history in segments: its changed sealed items and its
   * tail's full chunks become segments (kept until the snapshot is written: `saved`). Returns their ids.
   */
  async seal(state: SessionState): Promise<string[]> {
    const source = sourceOf(state);
    if (!source) return [];
    await this.loadSegments(source, segmentsToSeal(state));
    const sealed: string[] = [];
    sealChanges(state, (id, items) => {
      this.unsaved.set(id, items);
      source.pin(id, items);
      sealed.push(id);
    });
    return sealed;
  }

  /** The snapshot of segments `seal` returned is written (or failed, its state forgotten): the store or nothing holds them now. */
  saved(segmentIds: readonly string[]): void {
    for (const id of segmentIds) this.unsaved.delete(id);
  }

  /**
   * The segments `ids` of a snapshot, to restore a whole state from it: from the segment cache, the
   * rest from the store in one read. Null when the store keeps no segments; throws when one is gone.
   */
  async readAll(streamId: string, ids: readonly string[]): Promise<Map<string, readonly unknown[]> | null> {
    const found = new Map<string, readonly unknown[]>();
    const missing: string[] = [];
    for (const id of ids) {
      const value = this.segmentCache.get(id);
      if (value) found.set(id, value);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    if (!this.store.loadSnapshotSegments) return null;
    const stored = await this.store.loadSnapshotSegments(streamId, missing);
    for (const id of missing) {
      const json = stored.get(id);
      if (json === undefined) throw new Error(`snapshot segment ${id} of ${streamId} is missing`);
      found.set(id, this.segmentCache.add(id, json));
    }
    return found;
  }

  /** Pins the segments `ids` for `source`'s state: from memory where they are, the rest from the store in one read. */
  private async loadSegments(source: HistorySource, ids: readonly string[]): Promise<void> {
    const missing: string[] = [];
    for (const id of ids) if (source.get(id) === undefined) missing.push(id);
    if (missing.length === 0) return;
    const stored = await this.store.loadSnapshotSegments!(source.streamId, missing);
    for (const id of missing) {
      const json = stored.get(id);
      if (json === undefined) {
        // Its snapshot was pruned (retention) after another process wrote newer ones: this state is stale.
        const missing = new SegmentMissing(`snapshot segment ${id} of ${source.streamId} is missing`);
        this.onMissing(source.streamId, missing);
        throw missing;
      }
      source.pin(id, this.segmentCache.add(id, json));
    }
  }
}

function sourceOf(state: SessionState): HistorySource | undefined {
  return lazyPartsOf(state)[0]?.source as HistorySource | undefined;
}

/**
 * Before deciding, a missing segment is a conflict: the command loop forgets the state and decides
 * again on one restored from the newest snapshot (nothing was appended yet).
 */
function conflictIfMissing(streamId: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof SegmentMissing) throw new ConcurrencyError(streamId, 'any', -1);
    throw error;
  };
}
