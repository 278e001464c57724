import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import type { SessionState, ToolCall, Turn } from '@rewind/domain';
import type { SnapshotSegment } from '@rewind/event-store';

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
 * (Object.assign), so a restored state gets its own copy of those containers: fresh arrays and
 * records, a shallow copy of each turn (with its own messages array) and of each tool call.
 * What stays shared is what evolve only ever replaces and never changes in place: messages,
 * and the JSON values inside tool calls. They are frozen, so a future in-place change there
 * fails loudly instead of corrupting the cache.
 */
export const SEGMENTED_FORMAT = 'rewind.segmented.1';

/**
 * Items per segment. A 20-turn session (the common case) stays below one chunk: its snapshot
 * is a head only, read in the same round trip as its tail.
 */
export interface SegmentSizes {
  turns: number;
  toolCalls: number;
  timeline: number;
}

export const DEFAULT_SEGMENT_SIZES: SegmentSizes = { turns: 32, toolCalls: 32, timeline: 1024 };

type SegmentKind = 'turns' | 'toolCalls' | 'timeline';
type SegmentRefs = Record<SegmentKind, string[]>;

/** What a segmented snapshot stores as its state. */
export interface SegmentedHead {
  format: typeof SEGMENTED_FORMAT;
  /** The state without its sealed chunks: the turns, tool calls and timeline entries after them. */
  state: SessionState;
  segments: SegmentRefs;
}

/** A snapshot encoded now (its text is fixed; the state may go on changing), named and hashed later. */
export interface EncodedSnapshot {
  version: number;
  head: string;
  chunks: { kind: SegmentKind; json: string }[];
}

function chunked<T>(items: readonly T[], size: number): { sealed: T[][]; rest: T[] } {
  const sealed: T[][] = [];
  const full = items.length - (items.length % size);
  for (let i = 0; i < full; i += size) sealed.push(items.slice(i, i + size));
  return { sealed, rest: items.slice(full) };
}

/**
 * The JSON of sealed chunks, remembered per container (a state's turns array, tool-call record,
 * timeline array) between its snapshots, so that a long session does not stringify its whole
 * history every time. A chunk is written again when one of its items was replaced, or changed
 * where evolve changes items in place: a turn's messages (appended) and status; a tool call's
 * outcome fields. Containers replaced by a head move or a restore start afresh.
 */
interface ChunkMemo {
  refs: unknown[];
  marks: unknown[];
  json: string;
}
const chunkMemo = new WeakMap<object, Map<number, ChunkMemo>>();

function chunkJson<T>(owner: object, index: number, chunk: T[], ref: (item: T) => unknown, marks: (item: T, into: unknown[]) => void): string {
  let memo = chunkMemo.get(owner);
  if (!memo) chunkMemo.set(owner, (memo = new Map()));
  const refs = chunk.map(ref);
  const now: unknown[] = [];
  for (const item of chunk) marks(item, now);
  const known = memo.get(index);
  if (known && sameItems(known.refs, refs) && sameItems(known.marks, now)) return known.json;
  const json = JSON.stringify(chunk);
  memo.set(index, { refs, marks: now, json });
  return json;
}

const sameItems = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((x, i) => x === b[i]);

const turnMarks = (turn: Turn, into: unknown[]) => void into.push(turn.messages, turn.messages.length, turn.status);
const callMarks = ([key, call]: [string, ToolCall], into: unknown[]) =>
  void into.push(key, call.status, call.output, call.error, call.retryable, call.finishedVersion, call.attempts, call.startedVersion);

/** Encodes `state` synchronously (a fixed copy, cheaper than a deep clone); hashing is left to `nameSegments`. */
export function encodeSnapshot(state: SessionState, sizes: SegmentSizes = DEFAULT_SEGMENT_SIZES): EncodedSnapshot {
  const turns = chunked(state.path.turns, sizes.turns);
  const calls = chunked(Object.entries(state.path.toolCalls), sizes.toolCalls);
  const timeline = chunked(state.timeline, sizes.timeline);
  const rest: SessionState = {
    ...state,
    path: { ...state.path, turns: turns.rest, toolCalls: Object.fromEntries(calls.rest) },
    timeline: timeline.rest,
  };
  const chunks: EncodedSnapshot['chunks'] = [
    ...turns.sealed.map((chunk, i) => ({ kind: 'turns' as const, json: chunkJson(state.path.turns, i, chunk, (t) => t, turnMarks) })),
    ...calls.sealed.map((chunk, i) => ({ kind: 'toolCalls' as const, json: chunkJson(state.path.toolCalls, i, chunk, ([, call]) => call, callMarks) })),
    ...timeline.sealed.map((chunk, i) => ({
      kind: 'timeline' as const,
      json: chunkJson(
        state.timeline,
        i,
        chunk,
        (v) => v,
        () => undefined,
      ),
    })),
  ];
  return { version: state.version, head: JSON.stringify(rest), chunks };
}

export function segmentId(kind: SegmentKind, json: string): string {
  return `${kind}:${createHash('sha256').update(json).digest('base64url').slice(0, 32)}`;
}

/** The snapshot state (a head) and its segments. */
export function nameSegments(encoded: EncodedSnapshot): { head: SegmentedHead | SessionState; segments: SnapshotSegment[] } {
  const state = JSON.parse(encoded.head) as SessionState;
  if (encoded.chunks.length === 0) return { head: state, segments: [] };
  const refs: SegmentRefs = { turns: [], toolCalls: [], timeline: [] };
  const segments = encoded.chunks.map(({ kind, json }) => {
    const id = segmentId(kind, json);
    refs[kind].push(id);
    return { id, data: json };
  });
  return { head: { format: SEGMENTED_FORMAT, state, segments: refs }, segments };
}

export function isSegmentedHead(value: unknown): value is SegmentedHead {
  const head = value as Partial<SegmentedHead> | null;
  return typeof head === 'object' && head !== null && head.format === SEGMENTED_FORMAT;
}

function deepFreeze<T>(value: T): T {
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

/** States that still share (frozen) turns or tool calls with the segment cache. */
const sharing = new WeakSet<SessionState>();

const ownTurn = (turn: Turn): Turn => ({ ...turn, messages: turn.messages.slice() });
const ownCall = (call: ToolCall): ToolCall => ({ ...call });

/**
 * Rebuilds the state of a segmented head whose segments are all given (decoded, shared, frozen).
 * The head's own objects are taken over (it was parsed for this call). The containers are new;
 * the turns and tool calls in them are shared, except those `touched` names (the tail about to
 * be folded in changes them in place): those are copies. Before any other in-place change, the
 * state must be made private with `ownState`.
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

/** Makes `state` safe to change in place with any event: copies the turns and tool calls it shares with the cache. */
export function ownState(state: SessionState): SessionState {
  if (!sharing.has(state)) return state;
  const path = state.path;
  path.turns = path.turns.map((turn) => (Object.isFrozen(turn) ? ownTurn(turn) : turn));
  for (const key in path.toolCalls) {
    const call = path.toolCalls[key]!;
    if (Object.isFrozen(call)) path.toolCalls[key] = ownCall(call);
  }
  sharing.delete(state);
  return state;
}
