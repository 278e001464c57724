import { createHash } from 'node:crypto';
import { findTurnIndex, idFilter, lazyPartOf, type LazyPart, type SessionState, type ToolCall, type Turn } from '@rewind/domain';
import type { StoredEvent } from '@rewind/event-store';

/**
 * Encoding a segmented snapshot (see snapshot-segments.ts) in time that does not grow with the
 * session. The long, append-only containers (a state's turns array, tool-call record, timeline)
 * are cut into fixed-size chunks from their start; a sealed (full) chunk is stringified and hashed
 * once, and remembered per container. It is written again only when an item in it changed: evolve
 * changes turns (messages, status) and tool calls (outcome; a retry replaces one at its key) in
 * place, always ones that the event's data names (`touchedBy`). So the encoder must be told of
 * every event folded into a state it has encoded (`folded`): the turn index and a key → position
 * map locate the chunks to write again. A container replaced (a head move, a restore) starts afresh.
 */

/** Items per segment. A 20-turn session (the common case) stays below one chunk: its snapshot is a head only. */
export interface SegmentSizes {
  turns: number;
  toolCalls: number;
  timeline: number;
}

export const DEFAULT_SEGMENT_SIZES: SegmentSizes = { turns: 32, toolCalls: 32, timeline: 1024 };

export type SegmentKind = 'turns' | 'toolCalls' | 'timeline';

/** A sealed chunk's JSON text and the segment id that names it. */
export interface EncodedChunk {
  kind: SegmentKind;
  json: string;
  id: string;
  /** The filter of the ids in a turns or tool-calls chunk (base64, see id-filter.ts): heads carry them. */
  filter?: string;
}

/** A snapshot encoded now (its text is fixed; the state may go on changing). */
export interface EncodedSnapshot {
  version: number;
  head: string;
  chunks: EncodedChunk[];
  /** The items per chunk it was cut with: a restore reads sealed history in place only where it cuts the same. */
  sizes: SegmentSizes;
}

/** The ids of a turns or tool-calls chunk's items. */
function idsOf(kind: SegmentKind, items: readonly unknown[]): string[] {
  return items.map((item) => (kind === 'turns' ? (item as Turn).turnId : (item as readonly [string, ToolCall])[0]));
}

export function decodeFilter(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** A chunk's id filter as heads store it. */
export function filterText(kind: SegmentKind, items: readonly unknown[]): string | undefined {
  if (kind === 'timeline') return undefined;
  return Buffer.from(idFilter(idsOf(kind, items))).toString('base64');
}

export function segmentId(kind: SegmentKind, json: string): string {
  return `${kind}:${createHash('sha256').update(json).digest('base64url').slice(0, 32)}`;
}

/** The turns and tool calls that events may change in place (by the ids their data names). */
export interface Touched {
  turnIds: ReadonlySet<string>;
  toolCallIds: ReadonlySet<string>;
}

/** What folding `events` may change in place: the turns and tool calls their data names. */
export function touchedBy(events: readonly { data: unknown }[]): Touched {
  const turnIds = new Set<string>();
  const toolCallIds = new Set<string>();
  for (const event of events) {
    const data = event.data as { turnId?: unknown; toolCallId?: unknown } | null;
    if (typeof data !== 'object' || data === null) continue;
    if (typeof data.turnId === 'string') turnIds.add(data.turnId);
    if (typeof data.toolCallId === 'string') toolCallIds.add(data.toolCallId);
  }
  return { turnIds, toolCallIds };
}

/** The sealed chunks of one container as last encoded, and the ones that may have changed since. */
interface SealedChunks {
  chunks: EncodedChunk[];
  stale: Set<number>;
}

/** A tool-call record's chunks, and its keys in the record's order (new keys are learnt from the events folded). */
interface ToolCallChunks extends SealedChunks {
  keys: string[];
  positions: Map<string, number>;
}

/**
 * Keys that look like array indexes come first in a record's key order, whatever the order they
 * were added in: with one, the order cannot be learnt from the events (the record is listed again).
 */
export const isIndexLike = (key: string) => /^(0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * Remembers, per container, the sealed chunks it encoded. One per repository: it must see every
 * event folded in place into the states it encodes (`folded`), and none other may change them.
 */
export class SnapshotEncoder {
  private readonly sealed = new WeakMap<object, SealedChunks>();

  constructor(readonly sizes: SegmentSizes = DEFAULT_SEGMENT_SIZES) {}

  /** Told after `events` were folded into `state` in place: the chunks holding what they touched are written again. */
  folded(state: SessionState, events: readonly Pick<StoredEvent, 'type' | 'data'>[]): void {
    const path = state.path;
    const turns = this.sealed.get(path.turns);
    const calls = this.sealed.get(path.toolCalls) as ToolCallChunks | undefined;
    if (!turns && !calls) return;
    const touched = touchedBy(events);
    if (turns) {
      for (const turnId of touched.turnIds) {
        const index = findTurnIndex(path, turnId);
        if (index >= 0) turns.stale.add(Math.floor(index / this.sizes.turns));
      }
    }
    if (calls) {
      // Only a start adds a key, at the end of the record's order: in the order the starts were folded.
      for (const event of events) {
        if (event.type !== 'ToolCallStarted') continue;
        const key = (event.data as { toolCallId: string }).toolCallId;
        if (calls.positions.has(key) || !Object.hasOwn(path.toolCalls, key)) continue;
        if (isIndexLike(key)) {
          this.sealed.delete(path.toolCalls);
          return;
        }
        calls.positions.set(key, calls.keys.length);
        calls.keys.push(key);
      }
      for (const key of touched.toolCallIds) {
        const position = calls.positions.get(key);
        if (position !== undefined) calls.stale.add(Math.floor(position / this.sizes.toolCalls));
      }
    }
  }

  /**
   * Told of a state just assembled from a segmented snapshot (before its tail is folded in and
   * `folded` told of it): its sealed chunks are those segments, already named and stored, so its
   * first snapshot does not stringify and hash the whole history again. Only where the segments
   * were cut as this encoder cuts (same sizes, tool calls in the record's order); their text is
   * made from the (frozen) segment only if a write needs it.
   */
  assembled(state: SessionState, refs: Readonly<Record<SegmentKind, readonly string[]>>, segment: (id: string) => readonly unknown[]): void {
    const cutHere = (kind: SegmentKind, size: number) => refs[kind].every((id) => segment(id).length === size);
    const known = (kind: SegmentKind) => refs[kind].map((id) => knownChunk(kind, id, segment(id)));
    if (cutHere('turns', this.sizes.turns)) this.sealed.set(state.path.turns, { chunks: known('turns'), stale: new Set() });
    if (cutHere('timeline', this.sizes.timeline)) this.sealed.set(state.timeline, { chunks: known('timeline'), stale: new Set() });
    const keys = Object.keys(state.path.toolCalls);
    const inOrder = refs.toolCalls.every((id, c) =>
      (segment(id) as readonly (readonly [string, unknown])[]).every(([key], i) => keys[c * this.sizes.toolCalls + i] === key),
    );
    if (cutHere('toolCalls', this.sizes.toolCalls) && inOrder) {
      const calls: ToolCallChunks = { chunks: known('toolCalls'), stale: new Set(), keys, positions: new Map(keys.map((key, i) => [key, i])) };
      this.sealed.set(state.path.toolCalls, calls);
    }
  }

  /**
   * Encodes `state` synchronously (a fixed copy, cheaper than a deep clone), its sealed chunks named. A container
   * that is a view over sealed history (sealed-history.ts) gives its segments as they are and its tail as the rest:
   * seal its tail and its changed segments first (sealed-history-segments.ts), as the repository does.
   */
  encode(state: SessionState): EncodedSnapshot {
    const { sizes } = this;
    const turns = state.path.turns;
    const record = state.path.toolCalls;
    const timeline = state.timeline;
    const lazyTurns = lazyPartOf(turns);
    const lazyCalls = lazyPartOf(record);
    const lazyTimeline = lazyPartOf(timeline);
    const turnChunks = lazyTurns
      ? sealedChunks(lazyTurns)
      : chunksOf(this.memoOf(turns), 'turns', turns.length, sizes.turns, (from, to) => turns.slice(from, to));
    let callChunks: EncodedChunk[];
    let restCalls: SessionState['path']['toolCalls'] = {};
    if (lazyCalls?.kind === 'toolCalls') {
      callChunks = sealedChunks(lazyCalls);
      for (const [key, call] of lazyCalls.tail) restCalls[key] = call;
    } else {
      const calls = this.toolCallChunks(record);
      const keys = calls.keys;
      callChunks = chunksOf(calls, 'toolCalls', keys.length, sizes.toolCalls, (from, to) => keys.slice(from, to).map((key) => [key, record[key]!] as const));
      restCalls = {};
      for (let i = callChunks.length * sizes.toolCalls; i < keys.length; i++) restCalls[keys[i]!] = record[keys[i]!]!;
    }
    const timelineChunks = lazyTimeline
      ? sealedChunks(lazyTimeline)
      : chunksOf(this.memoOf(timeline), 'timeline', timeline.length, sizes.timeline, (from, to) => timeline.slice(from, to));
    const rest: SessionState = {
      ...state,
      path: {
        ...state.path,
        turns: lazyTurns?.kind === 'turns' ? lazyTurns.tail : turns.slice(turnChunks.length * sizes.turns),
        toolCalls: restCalls,
      },
      timeline: lazyTimeline?.kind === 'timeline' ? lazyTimeline.tail : timeline.slice(timelineChunks.length * sizes.timeline),
    };
    return { version: state.version, head: JSON.stringify(rest), chunks: [...turnChunks, ...callChunks, ...timelineChunks], sizes };
  }

  /** The record's chunks, its keys learnt by listing it when it is new here. */
  private toolCallChunks(record: Record<string, unknown>): ToolCallChunks {
    let calls = this.sealed.get(record) as ToolCallChunks | undefined;
    if (!calls) {
      const keys = Object.keys(record);
      calls = { chunks: [], stale: new Set(), keys, positions: new Map(keys.map((key, i) => [key, i])) };
      this.sealed.set(record, calls);
    }
    return calls;
  }

  private memoOf(owner: object): SealedChunks {
    let memo = this.sealed.get(owner);
    if (!memo) this.sealed.set(owner, (memo = { chunks: [], stale: new Set() }));
    return memo;
  }
}

/** A chunk stored already, as a segment: its text is made (once) only when it is asked for. */
function knownChunk(kind: SegmentKind, id: string, items: readonly unknown[]): EncodedChunk {
  let json: string | undefined;
  let filter: string | undefined;
  return {
    kind,
    id,
    get json() {
      return (json ??= JSON.stringify(items));
    },
    get filter() {
      return (filter ??= filterText(kind, items));
    },
  };
}

/**
 * The segments of a view over sealed history, as chunks: their ids and filters are known; their
 * text is made from the segment (which must then be in memory) only if a write needs it (a segment
 * not known to be stored).
 */
function sealedChunks(part: LazyPart): EncodedChunk[] {
  return part.refs.map((id, s) => ({
    kind: part.kind,
    id,
    ...(part.kind === 'timeline' ? {} : { filter: part.filterTexts[s]! }),
    get json() {
      const items = part.source.get(id);
      if (!items) throw new Error(`snapshot segment ${id} is no longer in memory`);
      return JSON.stringify(items);
    },
  }));
}

/** The sealed chunks of a container of `count` items: the remembered ones, the stale and newly sealed ones encoded now. */
function chunksOf(memo: SealedChunks, kind: SegmentKind, count: number, size: number, items: (from: number, to: number) => unknown[]): EncodedChunk[] {
  // Containers only grow; one that shrank was changed behind the encoder's back: encode it all again.
  if (memo.chunks.length * size > count) memo.chunks = [];
  const encode = (i: number): EncodedChunk => {
    const chunk = items(i * size, (i + 1) * size);
    const json = JSON.stringify(chunk);
    const filter = filterText(kind, chunk);
    return { kind, json, id: segmentId(kind, json), ...(filter !== undefined ? { filter } : {}) };
  };
  for (const i of memo.stale) if (i < memo.chunks.length) memo.chunks[i] = encode(i);
  memo.stale.clear();
  const full = Math.floor(count / size);
  for (let i = memo.chunks.length; i < full; i++) memo.chunks.push(encode(i));
  return memo.chunks.slice(0, full);
}

/** Encodes `state` from scratch (nothing remembered): for a state whose changes no encoder was told of. */
export function encodeSnapshot(state: SessionState, sizes: SegmentSizes = DEFAULT_SEGMENT_SIZES): EncodedSnapshot {
  return new SnapshotEncoder(sizes).encode(state);
}
