import { LRUCache } from 'lru-cache';
import {
  cloneState,
  evolveInPlace,
  initialSessionState,
  REDUCER_VERSION,
  type PathState,
  type RecordedSessionEvent,
  type SessionEvent,
  type SessionState,
  type ToolCall,
} from '@rewind/domain';
import { loadSnapshotAndTail, type EventStore, type Snapshot, type StoredEvent } from '@rewind/event-store';
import { SealedHistoryLoader, SegmentMissing } from './sealed-history-loader';
import { hasSealedHistory, readableInPlace, residentWeight } from './sealed-history-segments';
import { SnapshotCadence } from './snapshot-cadence';
import {
  assembleState,
  wholeState,
  encodeSnapshot,
  isSegmentedHead,
  nameSegments,
  ownTouched,
  sharedSegmentCache,
  SnapshotEncoder,
  touchedBy,
  type EncodedSnapshot,
  type SegmentCache,
  type SegmentSizes,
  type Touched,
} from './snapshot-segments';

export interface SessionRepositoryOptions {
  /** Write a snapshot each time the stream crosses a multiple of this many events (0: never). */
  snapshotEvery: number;
  /** Also write one when this many seconds passed since this process last wrote one for the stream (0: never). */
  snapshotEverySeconds?: number;
  /** Told when a background snapshot write fails (nothing is lost: snapshots are caches). */
  onSnapshotError?: (error: unknown) => void;
  /** Told how long each rebuild of a session's state from the store took, in seconds (restore-time metric). */
  onRestored?: (seconds: number) => void;
  /** How many sessions' current state to keep in memory (default 2 000). */
  cacheSize?: number;
  /**
   * And at most this many events' worth of state in all (default 2 000 000): a session's state
   * grows with its conversation (~430 bytes of heap an event, measured), so a count alone does not
   * bound the memory of long sessions. The least recently used state goes first; its next use
   * restores it from the nearest snapshot.
   */
  cacheEvents?: number;
  /**
   * A cached state used within this many ms is never evicted to make room for another (default
   * 30 000). With more active sessions than the budget holds, least-recently-used eviction takes
   * each state just before its next use (every request a restore, the heap churning: a soak on a
   * fast host collapsed when the budget filled); so the states that fit stay, and the others are
   * restored on each use until room frees.
   */
  cacheResidencyMs?: number;
  /** Decoded snapshot segments (default: one cache for the process). */
  segmentCache?: SegmentCache;
  /** Items per snapshot segment (default DEFAULT_SEGMENT_SIZES; tests use small ones). */
  segmentSizes?: SegmentSizes;
  /**
   * A state restored for a write keeps its sealed history in the snapshot segments, read as a
   * decision names it (default true; issue 40): restoring it costs its number of segments and it
   * weighs its tail in the cache. False restores whole states (O(the session) a restore), as
   * before: for comparisons (the session-length bench's `--whole-states`).
   */
  sealedHistoryInSegments?: boolean;
  /**
   * A cached whole state of at least this many events becomes a state with views over its segments at its next
   * snapshot (default 4 096; 0: never): from then on it weighs its tail in the cache, not its history, so the heap
   * follows the configuration, not the sessions' length (issue 40). Shorter states stay whole: a whole read of them
   * (the current state, a window) needs no copy.
   */
  viewsFromEvents?: number;
}

export const DEFAULT_VIEWS_FROM_EVENTS = 4_096;

/**
 * The read boundary: what the store gives back from a session stream is the session events
 * written there (the write path keeps their type and needs no such step).
 */
export function asSessionEvent(event: StoredEvent): StoredEvent<SessionEvent> {
  return event as StoredEvent<SessionEvent>;
}

/**
 * At most `entries` entries, least recently used out first. Counted as sizes rather than with
 * `max`, which preallocates its arrays: repositories are cheap to create (the CLI, tests).
 */
function countBounded(entries: number) {
  return { maxSize: entries, sizeCalculation: () => 1 };
}

interface RestoreOptions {
  /**
   * The state becomes the repository's current one, which writes fold into and snapshot: the
   * snapshot encoder is told of its segments (so its next snapshot reuses them). Off for a state
   * only read (a past version, a path): telling the encoder is O(the session) and nothing would use it.
   */
  forWrites?: boolean;
}

/**
 * Loads session state at any version: nearest valid snapshot at or before it, then the
 * tail of events folded in order; a head move in the tail resolves its target's path
 * state the same way. Keeps the current state of recently used sessions in memory.
 * Snapshots are segmented (see snapshot-segments.ts); one that cannot be used is skipped
 * (replay from the start), never an error.
 */
export class SessionRepository {
  private readonly current: LRUCache<string, SessionState>;
  private readonly cadence: SnapshotCadence;
  private readonly pendingSnapshots = new Set<Promise<unknown>>();
  /** Segment ids known to be stored, per stream: a snapshot write does not send them again. */
  private readonly storedSegments = new LRUCache<string, Set<string>>(countBounded(10_000));
  /** Remembers the sealed chunks of the cached states between their snapshots (told of every fold into them). */
  private readonly encoder: SnapshotEncoder;
  /** When each cached state was last used (performance.now()): eviction spares the recently used. */
  private readonly usedAt = new WeakMap<SessionState, number>();
  /**
   * Restored states not yet registered with the snapshot encoder (its `assembled`, then `folded` for the tail): done when
   * the state is cached, or when a snapshot of it falls due. Registering is O(the session), and a state restored for one
   * write and left out of a full cache was registered on every write (22 % of the event loop in the soak's last minutes).
   */
  private readonly unregistered = new WeakMap<SessionState, () => void>();
  /** States restored for a write and left out of the cache (no room): only that write holds them, so it may fold into them. */
  private readonly unshared = new WeakSet<SessionState>();
  /** Reads snapshot segments: a write's sealed history as it is needed, all of a whole state's at once. */
  private readonly history: SealedHistoryLoader;

  constructor(
    readonly store: EventStore,
    readonly options: SessionRepositoryOptions,
  ) {
    this.current = new LRUCache({
      max: options.cacheSize ?? 2_000,
      maxSize: options.cacheEvents ?? 2_000_000,
      sizeCalculation: residentWeight,
    });
    this.encoder = new SnapshotEncoder(options.segmentSizes);
    this.cadence = new SnapshotCadence(options.snapshotEvery, options.snapshotEverySeconds);
    this.history = new SealedHistoryLoader(store, options.segmentCache ?? sharedSegmentCache, (streamId, missing) => {
      this.forget(streamId);
      this.options.onSnapshotError?.(missing);
    });
  }

  /**
   * The state at `version` (default: the newest). The returned object may be shared with
   * the cache: read it, never mutate it. `forWrite` (the command loop's load): the state may keep
   * its sealed history in the segments (sealed-history.ts), to be decided on after `prepare`;
   * otherwise it is whole (materialised from its segments when the cached one is not).
   */
  async load(streamId: string, version?: number, options: { trustCache?: boolean; forWrite?: boolean } = {}): Promise<SessionState> {
    const state = await this.loadAny(streamId, version, options);
    return options.forWrite || !hasSealedHistory(state) ? state : this.history.materialise(state);
  }

  private async loadAny(streamId: string, version: number | undefined, options: { trustCache?: boolean; forWrite?: boolean }): Promise<SessionState> {
    const cached = this.current.get(streamId);
    if (cached && (version === undefined || version === cached.version)) {
      this.usedAt.set(cached, performance.now());
      // Writers may trust the cache: a stale one fails the append's expected-version check.
      if (version !== undefined || options.trustCache) return cached;
      const latest = await this.store.streamVersion(streamId);
      if (latest === cached.version) return cached;
    }
    const state = await this.timedRestore(streamId, version ?? Number.MAX_SAFE_INTEGER, { forWrites: version === undefined });
    if (version === undefined) {
      if (this.keep(streamId, state)) this.register(state);
      else this.unshared.add(state);
    }
    return state;
  }

  /**
   * The tool call `toolCallId` of the newest state, read without a whole copy of a state with views (a lookup of its
   * id in the segments' filters); undefined when the state has no such call.
   */
  async toolCallOf(streamId: string, toolCallId: string, options: { trustCache?: boolean } = {}): Promise<ToolCall | undefined> {
    return this.history.toolCallOf(await this.loadAny(streamId, undefined, options), toolCallId);
  }

  /**
   * Before deciding on a state loaded `forWrite`: loads the sealed segments that may hold what
   * `named` names (a command's turn and tool-call ids) and the newest turn's, so that deciding
   * reads only memory. Undefined when there is nothing to load (the common case: no await).
   */
  prepare(state: SessionState, named: () => Touched): Promise<void> | undefined {
    return this.history.prepare(state, named);
  }

  /** Loads sealed segments a decision found missing (`HistoryNotLoaded`), or all of the state's. */
  loadHistory(state: SessionState, segmentIds: readonly string[] | 'all'): Promise<void> {
    return this.history.loadHistory(state, segmentIds);
  }

  /**
   * The path state at a timeline node, not shared with the repository's current states. It may
   * share frozen turns and tool calls with the snapshot segment cache: clone it to change it.
   */
  async pathAt(streamId: string, version: number): Promise<PathState> {
    const cached = this.current.get(streamId);
    if (cached && cached.head === version) return cloneState((hasSealedHistory(cached) ? await this.history.materialise(cached) : cached).path);
    const state = await this.timedRestore(streamId, version);
    return state.path;
  }

  /** `restore`, timed for `onRestored` (only here: restore recurses into the paths it needs). */
  private async timedRestore(streamId: string, version: number, options: RestoreOptions = {}): Promise<SessionState> {
    if (!this.options.onRestored) return this.restore(streamId, version, options);
    const started = performance.now();
    const state = await this.restore(streamId, version, options);
    this.options.onRestored((performance.now() - started) / 1000);
    return state;
  }

  /** Rebuilds state at `version` from the store (snapshot + tail); never touches the cache. */
  async restore(streamId: string, version: number, { forWrites = false }: RestoreOptions = {}): Promise<SessionState> {
    let state: SessionState;
    let events: StoredEvent[];
    if (this.options.snapshotEvery > 0) {
      // One read (one round trip where the store offers it): the snapshot and the tail after it.
      const read = await loadSnapshotAndTail(this.store, streamId, REDUCER_VERSION, version);
      const restored = read.snapshot ? await this.fromSnapshot(read.snapshot, read.events, forWrites) : null;
      if (restored) {
        state = restored;
        events = read.events;
      } else {
        state = initialSessionState();
        events = read.snapshot ? await this.store.readStream(streamId, { fromVersion: 1, toVersion: version }) : read.events;
      }
    } else {
      state = initialSessionState();
      events = await this.store.readStream(streamId, { fromVersion: 1, toVersion: version });
    }
    const tail = events.map(asSessionEvent);
    const paths = await this.pathsNeededBy(streamId, state, tail);
    for (const event of tail) evolveInPlace(state, event, (v) => cloneState(paths.get(v)!));
    const assemble = this.unregistered.get(state);
    if (assemble) {
      this.unregistered.set(state, () => {
        assemble();
        this.encoder.folded(state, tail);
      });
    }
    return state;
  }

  /**
   * The state a snapshot holds, or null when it cannot be used (a cache miss, never an error:
   * the caller replays instead). A segmented snapshot takes its segments from the cache, and
   * the ones missing from the store in one read.
   */
  private async fromSnapshot(snapshot: Snapshot, tail: readonly StoredEvent[], forWrites: boolean): Promise<SessionState | null> {
    try {
      let state: SessionState;
      const inSegments = forWrites && this.options.sealedHistoryInSegments !== false && this.store.loadSnapshotSegments !== undefined;
      if (isSegmentedHead(snapshot.state) && inSegments && readableInPlace(snapshot.state, this.encoder.sizes)) {
        // For a write: the sealed history stays in the segments, read as a decision names it (O(segments), not O(items)).
        const head = snapshot.state;
        this.knownStored(snapshot.streamId, head.segments.turns.concat(head.segments.toolCalls, head.segments.timeline));
        // The tail about to be folded names turns and tool calls: their segments first.
        state = await this.history.overSegments(snapshot.streamId, head, this.encoder.sizes, tail);
      } else if (isSegmentedHead(snapshot.state)) {
        const head = snapshot.state;
        const ids = head.segments.turns.concat(head.segments.toolCalls, head.segments.timeline);
        const found = await this.history.readAll(snapshot.streamId, ids);
        if (!found) return null;
        this.knownStored(snapshot.streamId, ids);
        const refs = head.segments;
        state = assembleState(head, (id) => found.get(id)!, touchedBy(tail));
        if (forWrites) {
          const { turns, toolCalls } = state.path;
          const timeline = state.timeline;
          this.unregistered.set(state, () => {
            // A head move since (in the tail, or in the write) replaced the containers: the segments describe none of them.
            if (state.path.turns !== turns || state.path.toolCalls !== toolCalls || state.timeline !== timeline) return;
            this.encoder.assembled(state, refs, (id) => found.get(id)!);
          });
        }
      } else {
        state = snapshot.state as SessionState;
      }
      if (state?.version !== snapshot.version || !Array.isArray(state.timeline) || state.timeline.length !== state.version || !state.path) {
        throw new Error(`snapshot ${snapshot.streamId}@${snapshot.version} does not hold a state at its version`);
      }
      return state;
    } catch (error) {
      // Segments thought stored may be gone: later snapshots send theirs again.
      this.storedSegments.delete(snapshot.streamId);
      this.options.onSnapshotError?.(error);
      return null;
    }
  }

  private knownStored(streamId: string, ids: readonly string[]): void {
    if (ids.length === 0) return;
    const known = this.storedSegments.get(streamId) ?? new Set<string>();
    for (const id of ids) known.add(id);
    this.storedSegments.set(streamId, known);
  }

  /** Writes a snapshot of `state` now (e.g. when loading history in bulk). */
  async saveSnapshot(streamId: string, state: SessionState): Promise<void> {
    await this.writeSnapshot(streamId, encodeSnapshot(state, this.options.segmentSizes));
  }

  /** Sends the head and the segments not known to be stored already. */
  private async writeSnapshot(streamId: string, encoded: EncodedSnapshot): Promise<void> {
    const { head, segments } = nameSegments(encoded);
    const snapshot = { streamId, version: encoded.version, reducerVersion: REDUCER_VERSION };
    if (!this.store.loadSnapshotSegments) {
      // A store without segments gets whole states.
      await this.store.saveSnapshot({ ...snapshot, state: isSegmentedHead(head) ? wholeState(head, segments) : head });
      return;
    }
    const known = this.storedSegments.get(streamId);
    await this.store.saveSnapshot(
      { ...snapshot, state: head },
      segments.filter((segment) => !known?.has(segment.id)),
    );
    this.knownStored(
      streamId,
      segments.map((segment) => segment.id),
    );
  }

  /** Head moves (and steps whose parent is not the head) need their target's path state. */
  private async pathsNeededBy(streamId: string, start: SessionState, tail: RecordedSessionEvent[]): Promise<Map<number, PathState>> {
    const targets = new Set<number>();
    let head = start.head;
    for (const event of tail) {
      if (event.type === 'RollbackCompleted') {
        targets.add(event.data.toVersion);
        head = event.data.toVersion;
      } else if (event.parentVersion !== null) {
        if (event.parentVersion !== head) targets.add(event.parentVersion);
        head = event.streamVersion;
      } else if (event.type === 'SessionStarted') head = event.streamVersion;
    }
    const paths = new Map<number, PathState>();
    for (const target of targets) paths.set(target, (await this.restore(streamId, target)).path);
    return paths;
  }

  /**
   * Folds freshly appended events into the cached state (when it is the state they were
   * decided on; `folded` when the decision folded them already) and writes a snapshot when the stream crosses the cadence.
   */
  async committed(
    streamId: string,
    decidedOn: SessionState,
    events: StoredEvent<SessionEvent>[],
    { targetPath, folded }: { targetPath?: PathState; folded?: SessionState } = {},
  ): Promise<SessionState> {
    const before = decidedOn.version;
    // A state with sealed history in segments: the ones holding what the events change must be in memory to fold them.
    if (!folded && hasSealedHistory(decidedOn)) {
      try {
        await this.history.readyToFold(decidedOn, events);
      } catch (error) {
        // The events are appended: never a conflict here (the command would be written twice). The stale state was
        // forgotten; the one restored from the store holds them.
        if (!(error instanceof SegmentMissing)) throw error;
        return this.loadAny(streamId, undefined, {});
      }
    }
    const state = folded ?? this.fold(streamId, decidedOn, events, targetPath);
    const due = this.cadence.due(streamId, before, state.version);
    // A state restored for this write and left out of the cache is registered only if a snapshot needs it now; else
    // never (folded without the encoder told, its segments no longer describe it: its first snapshot starts afresh).
    if (due) this.register(state);
    else this.unregistered.delete(state);
    this.encoder.folded(state, events);
    this.keep(streamId, state);
    if (due) {
      this.cadence.written(streamId, state.version);
      // A snapshot is a cache: written after the answer, off the request's latency. Encoded
      // now, because the cached state keeps changing in place.
      let sealed: string[];
      try {
        sealed = await this.history.seal(state);
      } catch (error) {
        // The state is right (folded); only its snapshot is skipped, and it was forgotten (see SealedHistoryLoader).
        if (!(error instanceof SegmentMissing)) throw error;
        return state;
      }
      const encoded = this.encoder.encode(state);
      sealed.push(...this.viewInstead(streamId, state, encoded));
      const write = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.writeSnapshot(streamId, encoded))
        .catch((error: unknown) => {
          // Segments sealed for it were not stored: the state (which names them) must not outlive them.
          if (sealed.length > 0) this.forget(streamId);
          this.options.onSnapshotError?.(error);
        })
        .finally(() => {
          this.history.saved(sealed);
          this.pendingSnapshots.delete(write);
        });
      this.pendingSnapshots.add(write);
    }
    return state;
  }

  /**
   * Caches a state with views over the segments of `encoded` in place of `state`, a long whole state just encoded
   * (see `viewsFromEvents`); returns the segments it reads from memory until the snapshot is written.
   */
  private viewInstead(streamId: string, state: SessionState, encoded: EncodedSnapshot): string[] {
    const from = this.options.viewsFromEvents ?? DEFAULT_VIEWS_FROM_EVENTS;
    if (from <= 0 || state.version < from || hasSealedHistory(state) || this.current.peek(streamId) !== state) return [];
    if (this.options.sealedHistoryInSegments === false || this.store.loadSnapshotSegments === undefined) return [];
    const { head, segments } = nameSegments(encoded);
    if (!isSegmentedHead(head) || !readableInPlace(head, this.encoder.sizes)) return [];
    const known = this.storedSegments.get(streamId);
    const unstored = segments.filter((segment) => !known?.has(segment.id));
    const { state: view, held } = this.history.viewOf(streamId, head, this.encoder.sizes, unstored);
    this.keep(streamId, view);
    return held;
  }

  private fold(streamId: string, decidedOn: SessionState, events: StoredEvent<SessionEvent>[], targetPath: PathState | undefined): SessionState {
    const cached = this.current.get(streamId);
    // The cached state may share sealed turns and tool calls with the segment cache: own those the events change first.
    // So may a state restored for this write and left out of the cache: nobody else holds it, so it need not be copied
    // either (a long session's copy was 41 % of the event loop in a soak whose sessions outgrew the cache).
    // A state with sealed history in segments is held by its writer alone (readers get whole copies): folded in place.
    const inPlace = cached === decidedOn || this.unshared.delete(decidedOn) || hasSealedHistory(decidedOn);
    const state = inPlace ? ownTouched(decidedOn, events) : cloneState(decidedOn);
    for (const event of events) {
      evolveInPlace(state, event, (v) => {
        if (targetPath) return cloneState(targetPath);
        throw new Error(`path state of version ${v} was not preloaded`);
      });
    }
    return state;
  }

  /** Tells the snapshot encoder of a restored state's segments (see `unregistered`), once. */
  private register(state: SessionState): void {
    const registration = this.unregistered.get(state);
    if (!registration) return;
    this.unregistered.delete(state);
    registration();
  }

  /** Caches `state` as the stream's current one, if there is room for it (see `cacheResidencyMs`); false when there is not. */
  private keep(streamId: string, state: SessionState): boolean {
    const now = performance.now();
    this.usedAt.set(state, now);
    // States change in place, and lru-cache keeps an entry's size when the same object is set
    // again: set afresh, so the events budget counts what the state has grown to.
    this.current.delete(streamId);
    if (!this.roomFor(residentWeight(state), now)) return false;
    this.current.set(streamId, state);
    return true;
  }

  /** Whether `size` events' worth fits, evicting (least recently used first) only states unused for the residency window. */
  private roomFor(size: number, now: number): boolean {
    const residency = this.options.cacheResidencyMs ?? 30_000;
    let free = this.current.maxSize - this.current.calculatedSize;
    let slots = this.current.max - this.current.size;
    if (free >= size && slots >= 1) return true;
    for (const key of this.current.rkeys()) {
      const state = this.current.peek(key)!;
      if (now - (this.usedAt.get(state) ?? 0) < residency) return false;
      free += residentWeight(state);
      slots += 1;
      if (free >= size && slots >= 1) return true;
    }
    return false;
  }

  /** Events' worth of session state the cache holds now (bounded by `cacheEvents`): what its share of the heap follows. */
  get cachedEvents(): number {
    return this.current.calculatedSize;
  }

  /** Sessions whose state the cache holds now. */
  get cachedSessions(): number {
    return this.current.size;
  }

  /** Waits for snapshot writes in flight (before closing the store). */
  async flushSnapshots(): Promise<void> {
    while (this.pendingSnapshots.size > 0) await Promise.allSettled([...this.pendingSnapshots]);
  }

  forget(streamId: string): void {
    this.current.delete(streamId);
  }
}
