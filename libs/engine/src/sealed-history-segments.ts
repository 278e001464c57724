import {
  lazyPartOf,
  lazyTimeline,
  lazyToolCalls,
  lazyTurns,
  materialisedTimeline,
  materialisedToolCalls,
  materialisedTurns,
  mayContain,
  missingSegments,
  segmentsToFind,
  type LazyPart,
  type LazyToolCalls,
  type LazyTurns,
  type SegmentSource,
  type SessionState,
  type ToolCall,
  type Turn,
} from '@rewind/domain';
import { decodeFilter, filterText, isIndexLike, segmentId, type SegmentSizes, type Touched } from './snapshot-encoder';
import { deepFreeze, type SegmentCache, type SegmentedHead } from './snapshot-segments';

/**
 * The engine's side of a state whose sealed history stays on disk (the views are the domain's,
 * sealed-history.ts): where a view's segments come from, restoring such a state from a snapshot
 * head, what to load before deciding, sealing its tail at a snapshot, and a whole copy for reads.
 */

/**
 * Where one state's views read their segments: those pinned for the write under way (so that
 * the segment cache cannot drop one between loading it and deciding), the segments sealed and not
 * yet written, then the process's segment cache. A segment read through it is pinned until the
 * next write on the state starts (`unpin`), so a cached state holds a few segments, not its history.
 */
export class HistorySource implements SegmentSource {
  private readonly pins = new Map<string, readonly unknown[]>();

  constructor(
    readonly streamId: string,
    private readonly cache: SegmentCache,
    private readonly unsaved: ReadonlyMap<string, readonly unknown[]>,
  ) {}

  get(id: string): readonly unknown[] | undefined {
    let items = this.pins.get(id);
    if (items) return items;
    items = this.unsaved.get(id) ?? this.cache.get(id);
    if (items) this.pins.set(id, items);
    return items;
  }

  pin(id: string, items: readonly unknown[]): void {
    this.pins.set(id, items);
  }

  unpin(): void {
    this.pins.clear();
  }
}

/** The views of a state (its turns, tool calls, timeline) that stand for sealed history. */
export function lazyPartsOf(state: SessionState): LazyPart[] {
  const parts: LazyPart[] = [];
  for (const container of [state.path.turns, state.path.toolCalls, state.timeline]) {
    const part = lazyPartOf(container);
    if (part) parts.push(part);
  }
  return parts;
}

export function hasSealedHistory(state: SessionState): boolean {
  return lazyPartOf(state.path.turns) !== undefined || lazyPartOf(state.path.toolCalls) !== undefined || lazyPartOf(state.timeline) !== undefined;
}

/** Whether a head can be restored with its sealed history left in the segments (it says how it was cut, with filters). */
export function readableInPlace(head: SegmentedHead, sizes: SegmentSizes): boolean {
  const { filters, sizes: cut } = head;
  return (
    filters !== undefined &&
    cut !== undefined &&
    cut.turns === sizes.turns &&
    cut.toolCalls === sizes.toolCalls &&
    cut.timeline === sizes.timeline &&
    filters.turns.length === head.segments.turns.length &&
    filters.toolCalls.length === head.segments.toolCalls.length
  );
}

/** The head's state with views over its segments in place of its turns, tool calls and timeline: O(segments). */
export function stateOverSegments(head: SegmentedHead, sizes: SegmentSizes, source: SegmentSource): SessionState {
  const state = head.state;
  const refs = head.segments;
  const filters = head.filters!;
  const sealed = (ids: string[], texts: string[]) => ({ refs: ids.slice(), filters: texts.map(decodeFilter), filterTexts: texts.slice() });
  state.path.turns = lazyTurns(sealed(refs.turns, filters.turns), sizes.turns, state.path.turns, source);
  state.path.toolCalls = lazyToolCalls(sealed(refs.toolCalls, filters.toolCalls), sizes.toolCalls, state.path.toolCalls, source);
  state.timeline = lazyTimeline(refs.timeline.slice(), sizes.timeline, state.timeline, source);
  return state;
}

/**
 * The segments to load before deciding or folding on `state` what names `touched` (the ids of a
 * command, or of events): those that may hold one of the ids, and the one holding the newest turn
 * when no turn is in the tail (a step without a turn id lands on it). Empty when all are in memory.
 */
export function segmentsFor(state: SessionState, touched: Touched): string[] {
  const wanted = new Set<string>();
  const turns = lazyPartOf(state.path.turns);
  if (turns?.kind === 'turns') {
    for (const id of touched.turnIds) for (const ref of segmentsToFind(turns, id)) wanted.add(ref);
    if (turns.tail.length === 0 && turns.refs.length > 0) for (const ref of missingSegments(turns, turns.refs.slice(-1))) wanted.add(ref);
  }
  const calls = lazyPartOf(state.path.toolCalls);
  if (calls?.kind === 'toolCalls') for (const id of touched.toolCallIds) for (const ref of segmentsToFind(calls, id)) wanted.add(ref);
  return [...wanted];
}

/**
 * A plain record keeps keys that look like array indexes first, whatever their order of insertion,
 * and snapshots cut tool calls in the record's order: a view cannot put a new such key before its
 * sealed ones. So a tool-call view that is about to get one (rare: ids are the caller's) is
 * replaced by the plain record first; these are the segments that needs.
 */
export function segmentsForRecordOrder(state: SessionState, events: readonly { type: string; data: unknown }[]): string[] | undefined {
  const calls = lazyPartOf(state.path.toolCalls);
  if (calls?.kind !== 'toolCalls') return undefined;
  const indexLike = events.some((event) => event.type === 'ToolCallStarted' && isIndexLike((event.data as { toolCallId: string }).toolCallId));
  return indexLike ? missingSegments(calls) : undefined;
}

/** Replaces a tool-call view by the plain record (see `segmentsForRecordOrder`; its segments must be in memory). */
export function plainToolCalls(state: SessionState): void {
  const calls = lazyPartOf(state.path.toolCalls);
  if (calls?.kind === 'toolCalls') state.path.toolCalls = materialisedToolCalls(calls);
}

/** Every segment of `state`'s views that is not in memory (for a whole read, or a head move's decision). */
export function allMissingSegments(state: SessionState): string[] {
  return lazyPartsOf(state).flatMap((part) => missingSegments(part));
}

/**
 * The segments a snapshot of `state` must read to seal its views' changed items: those holding
 * the sealed turns and tool calls evolve copied (see `sealChanges`).
 */
export function segmentsToSeal(state: SessionState): string[] {
  const wanted = new Set<string>();
  const turns = lazyPartOf(state.path.turns);
  if (turns?.kind === 'turns') for (const i of turns.copies.keys()) wanted.add(turns.refs[Math.floor(i / turns.size)]!);
  const calls = lazyPartOf(state.path.toolCalls);
  if (calls?.kind === 'toolCalls') for (const key of calls.copies.keys()) for (const ref of segmentsToFind(calls, key)) wanted.add(ref);
  const source = (turns ?? calls)?.source;
  return source ? [...wanted].filter((id) => source.get(id) === undefined) : [];
}

/** A segment sealed here: its id, and its items as the cache keeps them (parsed from its text: frozen, not the state's). */
export type OnSealed = (id: string, items: readonly unknown[]) => void;

/**
 * Before a snapshot of a state with views: the sealed segments holding items evolve changed are
 * cut again with the changes (a new segment replaces each), and the tail's full chunks become
 * segments, so that the view's own items stay fewer than a segment's worth past the last snapshot.
 * The segments it reads must be in memory (`segmentsToSeal`).
 */
export function sealChanges(state: SessionState, onSealed: OnSealed): void {
  const turns = lazyPartOf(state.path.turns);
  if (turns?.kind === 'turns') sealTurns(turns, onSealed);
  const calls = lazyPartOf(state.path.toolCalls);
  if (calls?.kind === 'toolCalls') sealToolCalls(calls, onSealed);
  const timeline = lazyPartOf(state.timeline);
  if (timeline?.kind === 'timeline') {
    while (timeline.tail.length >= timeline.size) {
      timeline.refs.push(seal('timeline', timeline.tail.slice(0, timeline.size), onSealed).id);
      timeline.tail = timeline.tail.slice(timeline.size);
    }
  }
}

function seal(kind: 'turns' | 'toolCalls' | 'timeline', items: readonly unknown[], onSealed: OnSealed): { id: string; filter: string | undefined } {
  const json = JSON.stringify(items);
  const id = segmentId(kind, json);
  // Frozen, as the segment cache's: evolve copies a sealed item before changing it (the text is what was hashed).
  onSealed(id, deepFreeze(JSON.parse(json) as unknown[]));
  return { id, filter: filterText(kind, items) };
}

function sealTurns(part: LazyTurns, onSealed: OnSealed): void {
  const changed = new Set([...part.copies.keys()].map((i) => Math.floor(i / part.size)));
  for (const s of changed) {
    const items = part.source.get(part.refs[s]!) as readonly Turn[];
    const turns = items.map((turn, i) => part.copies.get(s * part.size + i) ?? turn);
    part.refs[s] = seal('turns', turns, onSealed).id;
    for (let i = 0; i < part.size; i++) part.copies.delete(s * part.size + i);
  }
  if (part.tail.length < part.size) return;
  while (part.tail.length >= part.size) {
    const { id, filter } = seal('turns', part.tail.slice(0, part.size), onSealed);
    part.refs.push(id);
    part.filterTexts.push(filter!);
    part.filters.push(decodeFilter(filter!));
    part.tail = part.tail.slice(part.size);
  }
  part.tailIndex = new Map(part.tail.map((turn, i) => [turn.turnId, i]));
}

function sealToolCalls(part: LazyToolCalls, onSealed: OnSealed): void {
  if (part.copies.size > 0) {
    const changed = new Set<number>();
    for (const key of part.copies.keys()) {
      let found = false;
      for (let s = part.refs.length - 1; s >= 0 && !found; s--) {
        if (!mayContain(part.filters[s]!, key)) continue;
        const items = part.source.get(part.refs[s]!) as readonly (readonly [string, ToolCall])[] | undefined;
        if (!items) throw new Error(`snapshot segment ${part.refs[s]!} must be in memory to seal a change`);
        if (items.some(([k]) => k === key)) {
          changed.add(s);
          found = true;
        }
      }
    }
    for (const s of changed) {
      const items = part.source.get(part.refs[s]!) as readonly (readonly [string, ToolCall])[];
      const entries = items.map(([key, call]) => [key, part.copies.get(key) ?? call] as const);
      part.refs[s] = seal('toolCalls', entries, onSealed).id;
      for (const [key] of items) part.copies.delete(key);
    }
  }
  while (part.tail.size >= part.size) {
    const entries = [...part.tail].slice(0, part.size);
    const { id, filter } = seal('toolCalls', entries, onSealed);
    part.refs.push(id);
    part.filterTexts.push(filter!);
    part.filters.push(decodeFilter(filter!));
    for (const [key] of entries) part.tail.delete(key);
  }
}

/**
 * A copy of `state` with plain containers (every segment must be in memory: `allMissingSegments`),
 * for reads of the whole state. It shares the sealed items (frozen) and the other containers with
 * `state`: read it, never change it.
 */
export function materialised(state: SessionState): SessionState {
  const turns = lazyPartOf(state.path.turns);
  const calls = lazyPartOf(state.path.toolCalls);
  const timeline = lazyPartOf(state.timeline);
  return {
    ...state,
    path: {
      ...state.path,
      turns: turns?.kind === 'turns' ? materialisedTurns(turns) : state.path.turns,
      toolCalls: calls?.kind === 'toolCalls' ? materialisedToolCalls(calls) : state.path.toolCalls,
    },
    timeline: timeline?.kind === 'timeline' ? materialisedTimeline(timeline) : state.timeline,
  };
}

/** Events' worth of memory a state holds, for the state cache's budget: a state with views holds its tail and its segment list. */
export function residentWeight(state: SessionState): number {
  const timeline = lazyPartOf(state.timeline);
  if (timeline?.kind !== 'timeline') return Math.max(1, state.version);
  const turns = lazyPartOf(state.path.turns);
  const calls = lazyPartOf(state.path.toolCalls);
  // A segment id and its filter weigh about a third of an event's state (~150 of ~430 bytes).
  const segments = timeline.refs.length + (turns?.refs.length ?? 0) + (calls?.refs.length ?? 0);
  const copies = (turns?.kind === 'turns' ? turns.copies.size : 0) + (calls?.kind === 'toolCalls' ? calls.copies.size : 0);
  return Math.max(1, timeline.tail.length + copies * 5 + Math.ceil(segments / 3));
}
