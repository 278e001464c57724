import { LRUCache } from 'lru-cache';
import { findTurnIndex, type SessionState, type ToolCall, type Turn } from '@rewind/domain';
import type { SnapshotSegment } from '@rewind/event-store';
import { segmentId, touchedBy, type EncodedSnapshot, type SegmentKind, type SegmentSizes, type Touched } from './snapshot-encoder';

export * from './snapshot-encoder';

/**
 * Segmented snapshots. The long, append-only parts of a session state (the turns, the tool
 * calls in insertion order, the timeline) are cut into fixed-size chunks from their start; each
 * full chunk is a segment named by the hash of its content, written once per stream and shared
 * by every later snapshot that still holds the same chunk. A snapshot is then a small head: the
 * state without its sealed chunks, plus the ordered segment ids. A session shorter than one
 * chunk has a head only (the whole state, as before).
 *
 * Decoded segments are kept (deep-frozen) in a process-wide cache and shared by every state
 * restored from them. `evolveInPlace` mutates turns (status, messages array) and tool calls
 * (Object.assign), always ones its event names, so a restored state gets its own containers (fresh
 * arrays and records) and, as events are folded in, its own shallow copy of each turn (with its
 * own messages array) or tool call they name. What stays shared is what evolve does not change in
 * place: the other turns and tool calls, messages, and the JSON values inside tool calls. They are
 * frozen, so a future in-place change there fails loudly instead of corrupting the cache.
 */
export const SEGMENTED_FORMAT = 'rewind.segmented.1';

type SegmentRefs = Record<SegmentKind, string[]>;

/** What a segmented snapshot stores as its state. */
export interface SegmentedHead {
  format: typeof SEGMENTED_FORMAT;
  /** The state without its sealed chunks: the turns, tool calls and timeline entries after them. */
  state: SessionState;
  segments: SegmentRefs;
  /**
   * Per turns / tool-calls segment, the filter of its ids (base64, id-filter.ts), and the items per
   * segment: with both, a write restores the state with its sealed history left in the segments
   * (sealed-history.ts). Heads written before them lack both and are restored whole, as before.
   */
  filters?: { turns: string[]; toolCalls: string[] };
  sizes?: SegmentSizes;
}

/** The snapshot state (a head) and its segments. */
export function nameSegments(encoded: EncodedSnapshot): { head: SegmentedHead | SessionState; segments: SnapshotSegment[] } {
  const state = JSON.parse(encoded.head) as SessionState;
  if (encoded.chunks.length === 0) return { head: state, segments: [] };
  const refs: SegmentRefs = { turns: [], toolCalls: [], timeline: [] };
  const filters = { turns: [] as string[], toolCalls: [] as string[] };
  let filtered = true;
  // The text of a chunk known from a restore is made only if it is read (a segment not known stored).
  const segments = encoded.chunks.map((chunk) => {
    refs[chunk.kind].push(chunk.id);
    if (chunk.kind !== 'timeline') {
      const filter = chunk.filter;
      if (filter === undefined) filtered = false;
      else filters[chunk.kind].push(filter);
    }
    return {
      id: chunk.id,
      get data() {
        return chunk.json;
      },
    };
  });
  const head: SegmentedHead = { format: SEGMENTED_FORMAT, state, segments: refs };
  if (filtered) Object.assign(head, { filters, sizes: encoded.sizes });
  return { head, segments };
}

export function isSegmentedHead(value: unknown): value is SegmentedHead {
  const head = value as Partial<SegmentedHead> | null;
  return typeof head === 'object' && head !== null && head.format === SEGMENTED_FORMAT;
}

/** Freezes a decoded segment's items (shared by every state restored from it: a change must fail loudly). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Decoded segments by id (ids name contents, so one cache serves every stream), bounded by their text size. */
export class SegmentCache {
  private readonly entries: LRUCache<string, readonly unknown[]>;

  /** Each segment weighs its JSON text (given to `set`); one larger than the whole cache is returned but not kept. */
  constructor(readonly maxBytes: number = 64 * 1024 * 1024) {
    this.entries = new LRUCache({ maxSize: maxBytes });
  }

  get(id: string): readonly unknown[] | undefined {
    return this.entries.get(id);
  }

  /** Parses, checks and keeps a segment read from the store; throws if it is not what its id names. */
  add(id: string, json: string): readonly unknown[] {
    const kind = id.slice(0, id.indexOf(':')) as SegmentKind;
    if (!['turns', 'toolCalls', 'timeline'].includes(kind) || segmentId(kind, json) !== id) {
      throw new Error(`snapshot segment ${id} does not match its content`);
    }
    const value = JSON.parse(json) as unknown;
    if (!Array.isArray(value)) throw new Error(`snapshot segment ${id} is not an array`);
    deepFreeze(value);
    this.entries.set(id, value, { size: Math.max(1, json.length) });
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** The process-wide cache, shared by every repository that is not given its own. */
export const sharedSegmentCache = new SegmentCache();

/** States that still share (frozen) turns or tool calls with the segment cache. */
const sharing = new WeakSet<SessionState>();

const ownTurn = (turn: Turn): Turn => ({ ...turn, messages: turn.messages.slice() });
const ownCall = (call: ToolCall): ToolCall => ({ ...call });

/** The whole state of a head and the segments just named for it (as JSON): for a store that keeps no segments. */
export function wholeState(head: SegmentedHead, segments: readonly { id: string; data: string }[]): SessionState {
  const byId = new Map(segments.map((segment) => [segment.id, segment.data]));
  return assembleState(head, (id) => JSON.parse(byId.get(id)!) as unknown[], { turnIds: new Set(), toolCallIds: new Set() });
}

/**
 * Rebuilds the state of a segmented head whose segments are all given (decoded, shared, frozen).
 * The head's own objects are taken over (it was parsed for this call). The containers are new;
 * the turns and tool calls in them are shared, except those `touched` names (the tail about to
 * be folded in changes them in place): those are copies. Before folding more events into it,
 * own what they touch with `ownTouched`.
 */
export function assembleState(head: SegmentedHead, segments: (id: string) => readonly unknown[], touched: Touched): SessionState {
  const state = head.state;
  const turns: Turn[] = [];
  for (const id of head.segments.turns) {
    const chunk = segments(id) as readonly Turn[];
    for (let i = 0; i < chunk.length; i++) {
      const turn = chunk[i]!;
      turns.push(touched.turnIds.has(turn.turnId) ? ownTurn(turn) : turn);
    }
  }
  for (const turn of state.path.turns) turns.push(turn);
  const toolCalls: Record<string, ToolCall> = {};
  for (const id of head.segments.toolCalls) {
    const chunk = segments(id) as readonly (readonly [string, ToolCall])[];
    for (let i = 0; i < chunk.length; i++) {
      const entry = chunk[i]!;
      const key = entry[0];
      toolCalls[key] = touched.toolCallIds.has(key) ? ownCall(entry[1]) : entry[1];
    }
  }
  const rest = state.path.toolCalls;
  for (const key in rest) toolCalls[key] = rest[key]!;
  // Numbers only: concat copies them in bulk, 3x faster than pushing one by one.
  const timeline = ([] as number[]).concat(...head.segments.timeline.map((id) => segments(id) as readonly number[]), state.timeline);
  state.path.turns = turns;
  state.path.toolCalls = toolCalls;
  state.timeline = timeline;
  if (head.segments.turns.length > 0 || head.segments.toolCalls.length > 0) sharing.add(state);
  return state;
}

/**
 * Makes `state` safe to fold `events` into: they change (in place) only what they name, so it copies
 * those of its turns and tool calls it still shares with the cache, where they are (the containers
 * and the turn index stay). The rest stays shared, and frozen: evolve never changes an item its
 * event does not name (the same rule `assembleState` relies on).
 */
export function ownTouched(state: SessionState, events: readonly { data: unknown }[]): SessionState {
  if (!sharing.has(state)) return state;
  const touched = touchedBy(events);
  const path = state.path;
  for (const turnId of touched.turnIds) {
    const index = findTurnIndex(path, turnId);
    if (index >= 0 && Object.isFrozen(path.turns[index])) path.turns[index] = ownTurn(path.turns[index]!);
  }
  for (const key of touched.toolCallIds) {
    const call = path.toolCalls[key];
    if (call && Object.isFrozen(call)) path.toolCalls[key] = ownCall(call);
  }
  return state;
}
