import { idProbe, mayContain, maybeMask, SLICED_GROUP, sliceFilters, type IdProbe, type SlicedFilters } from './id-filter';
import type { ToolCall, Turn } from './turn-records';

/**
 * A state whose sealed history stays on disk (issue 40). A long session's turns, tool calls and
 * timeline are mostly sealed snapshot segments (fixed-size chunks, content-addressed, immutable).
 * The views below stand in for those containers: the items after the sealed ones (the tail) are
 * in memory, a sealed item is read from its segment when something asks for it, and each sealed
 * turn / tool-call segment carries a filter of its ids, so that "which segment holds id X, if
 * any" reads only the segments whose filter says maybe. Restoring such a state costs the number of
 * segments, not the number of items, and its memory is its tail.
 *
 * The views are synchronous (decide and evolve stay pure and synchronous): a read that needs a
 * segment not in memory throws `HistoryNotLoaded` naming the segments, and the command loop loads
 * them and decides again (decide is pure: deciding twice is safe). Before deciding it loads the
 * segments of the ids a command names, so that the retry is the exception.
 *
 * Sealed items are shared and frozen (they are the segment cache's); evolve changes only items it
 * asks for with `turnToChange` / `toolCallToChange`, which copy a frozen one first: the copies are
 * the view's own until a snapshot seals them into a new segment.
 */
export class HistoryNotLoaded extends Error {
  constructor(readonly segmentIds: readonly string[]) {
    super(`sealed history not in memory: ${segmentIds.length} segment(s) to load`);
    this.name = 'HistoryNotLoaded';
  }
}

/** Decoded segments by id (the engine's segment cache and the segments pinned for one write). */
export interface SegmentSource {
  get(id: string): readonly unknown[] | undefined;
}

export type SealedKind = 'turns' | 'toolCalls' | 'timeline';

/** What a view holds: its sealed segments (and their id filters) and what it has of its own. */
export interface SealedPart {
  readonly kind: SealedKind;
  /** Sealed segment ids in order; each holds exactly `size` items. */
  refs: string[];
  /** Per sealed segment, the filter of its ids (turns, tool calls; empty for the timeline). */
  filters: Uint8Array[];
  /** The same filters as stored (base64), kept to write them again unchanged. */
  filterTexts: string[];
  readonly size: number;
  readonly source: SegmentSource;
}

export interface LazyTurns extends SealedPart {
  readonly kind: 'turns';
  tail: Turn[];
  /** Own copies of sealed turns (changed by evolve), by index. */
  copies: Map<number, Turn>;
  tailIndex: Map<string, number>;
}

export interface LazyToolCalls extends SealedPart {
  readonly kind: 'toolCalls';
  /** Tool calls after the sealed ones, in the record's order. */
  tail: Map<string, ToolCall>;
  /** Own copies of sealed tool calls (changed by evolve), by key: they keep their sealed position. */
  copies: Map<string, ToolCall>;
}

export interface LazyTimeline extends SealedPart {
  readonly kind: 'timeline';
  tail: number[];
}

export type LazyPart = LazyTurns | LazyToolCalls | LazyTimeline;

const parts = new WeakMap<object, LazyPart>();

/** The sealed part behind a view, or undefined for a plain container. */
export function lazyPartOf(container: object): LazyPart | undefined {
  return parts.get(container);
}

function segmentOf(part: SealedPart, s: number): readonly unknown[] {
  const id = part.refs[s]!;
  const items = part.source.get(id);
  if (!items) throw new HistoryNotLoaded([id]);
  return items;
}

/** The sealed segments not in memory (all of them: for a whole read). */
export function missingSegments(part: SealedPart, among: readonly string[] = part.refs): string[] {
  return among.filter((id) => part.source.get(id) === undefined);
}

function requireAll(part: SealedPart): void {
  const missing = missingSegments(part);
  if (missing.length > 0) throw new HistoryNotLoaded(missing);
}

/**
 * Where `id` is among the sealed items (segment, index in it), or null; throws HistoryNotLoaded
 * with every segment whose filter says maybe and that is not in memory, when it is not found in
 * the others. Newest first: what a session names is mostly recent.
 */
function findSealed(part: SealedPart, id: string, idAt: (item: unknown) => string): { s: number; i: number } | null {
  let missing: string[] | undefined;
  let found: { s: number; i: number } | null = null;
  forEachMaybe(part, idProbe(id), (s) => {
    const items = part.source.get(part.refs[s]!);
    if (!items) {
      (missing ??= []).push(part.refs[s]!);
      return false;
    }
    for (let i = 0; i < items.length; i++) {
      if (idAt(items[i]) === id) {
        found = { s, i };
        return true;
      }
    }
    return false;
  });
  if (found) return found;
  if (missing) throw new HistoryNotLoaded(missing);
  return null;
}

/** The sealed segments that a lookup of `id` may read and that are not in memory (for loading before deciding). */
export function segmentsToFind(part: SealedPart, id: string): string[] {
  const found: string[] = [];
  forEachMaybe(part, idProbe(id), (s) => {
    const ref = part.refs[s]!;
    const items = part.source.get(ref);
    if (!items) found.push(ref);
    else if (items.some((item) => idOf(part.kind, item) === id)) return true;
    return false;
  });
  return found;
}

/** Full groups of a part's filters, bit-sliced as first probed (filters are only appended: a full group never changes). */
const slicedGroups = new WeakMap<SealedPart, { first: Uint8Array; sliced: SlicedFilters | null }[]>();

function slicedGroup(part: SealedPart, g: number): SlicedFilters | null {
  let groups = slicedGroups.get(part);
  if (!groups) slicedGroups.set(part, (groups = []));
  const first = part.filters[g * SLICED_GROUP]!;
  let group = groups[g];
  if (group?.first !== first) groups[g] = group = { first, sliced: sliceFilters(part.filters.slice(g * SLICED_GROUP, (g + 1) * SLICED_GROUP)) };
  return group.sliced;
}

/**
 * Calls `visit` with each sealed segment whose filter may hold the probed id, newest first, until
 * it returns true. A full group of 32 segments is probed at once (bit-sliced): a lookup of an id
 * that is not there — every new turn and tool call — costs the number of groups, not of segments.
 */
function forEachMaybe(part: SealedPart, probe: IdProbe, visit: (s: number) => boolean): void {
  const groups = Math.floor(part.filters.length / SLICED_GROUP);
  for (let s = part.refs.length - 1; s >= groups * SLICED_GROUP; s--) if (mayContain(part.filters[s]!, probe) && visit(s)) return;
  for (let g = groups - 1; g >= 0; g--) {
    const sliced = slicedGroup(part, g);
    if (!sliced) {
      for (let s = (g + 1) * SLICED_GROUP - 1; s >= g * SLICED_GROUP; s--) if (mayContain(part.filters[s]!, probe) && visit(s)) return;
      continue;
    }
    for (let mask = maybeMask(sliced, probe); mask !== 0; ) {
      const j = 31 - Math.clz32(mask);
      if (visit(g * SLICED_GROUP + j)) return;
      mask = (mask & ~(1 << j)) >>> 0;
    }
  }
}

function idOf(kind: SealedKind, item: unknown): string {
  return kind === 'turns' ? (item as Turn).turnId : (item as readonly [string, unknown])[0];
}

/** `key` as an array index, or -1. */
function indexOf(key: string | symbol): number {
  if (typeof key !== 'string') return -1;
  const n = Number(key);
  return Number.isInteger(n) && n >= 0 && String(n) === key ? n : -1;
}

/**
 * An array over sealed segments and a tail: reads of a sealed index go to its segment, writes
 * there keep an own copy (`writeSealed`), pushes go to the tail. Shrinking into the sealed part is
 * refused (evolve only pops tasks, never these).
 */
function arrayView<T>(
  part: SealedPart & { tail: T[] },
  readSealed: (i: number) => T,
  writeSealed: (i: number, value: T) => void,
  onTailSet?: (i: number, value: T) => void,
): T[] {
  const sealedCount = () => part.refs.length * part.size;
  const length = () => sealedCount() + part.tail.length;
  const at = (i: number): T | undefined => (i < sealedCount() ? readSealed(i) : part.tail[i - sealedCount()]);
  const write = (i: number, value: T) => {
    if (i < sealedCount()) writeSealed(i, value);
    else {
      part.tail[i - sealedCount()] = value;
      onTailSet?.(i - sealedCount(), value);
    }
  };
  const setLength = (n: number) => {
    if (n < sealedCount()) throw new Error(`a ${part.kind} view cannot shrink into its sealed history`);
    part.tail.length = n - sealedCount();
  };
  return new Proxy([] as T[], {
    get: (target, key, receiver) => {
      if (key === 'length') return length();
      const i = indexOf(key);
      if (i >= 0) return i < length() ? at(i) : undefined;
      return Reflect.get(target, key, receiver);
    },
    set: (target, key, value) => {
      if (key === 'length') setLength(Number(value));
      else if (indexOf(key) >= 0) write(indexOf(key), value as T);
      else return Reflect.set(target, key, value);
      return true;
    },
    deleteProperty: (target, key) => {
      if (indexOf(key) < 0) return Reflect.deleteProperty(target, key);
      throw new Error(`a ${part.kind} view does not delete entries`);
    },
    has: (target, key) => (indexOf(key) >= 0 ? indexOf(key) < length() : Reflect.has(target, key)),
    ownKeys: (target) => {
      requireAll(part);
      const keys: (string | symbol)[] = [];
      for (let i = 0; i < length(); i++) keys.push(String(i));
      return keys.concat(Reflect.ownKeys(target).filter((key) => indexOf(key) < 0));
    },
    getOwnPropertyDescriptor: (target, key) => {
      if (key === 'length') return { value: length(), writable: true, enumerable: false, configurable: false };
      const i = indexOf(key);
      if (i < 0) return Reflect.getOwnPropertyDescriptor(target, key);
      return i < length() ? { value: at(i), writable: true, enumerable: true, configurable: true } : undefined;
    },
    defineProperty: (target, key, descriptor) => {
      if (key !== 'length' && indexOf(key) < 0) return Reflect.defineProperty(target, key, descriptor);
      if (!('value' in descriptor)) return false;
      if (key === 'length') setLength(Number(descriptor.value));
      else write(indexOf(key), descriptor.value as T);
      return true;
    },
  });
}

export interface SealedRefs {
  refs: string[];
  filters: Uint8Array[];
  filterTexts: string[];
}

/** A turns array over sealed segments (items `Turn`) and the tail `tail`. */
export function lazyTurns(sealed: SealedRefs, size: number, tail: Turn[], source: SegmentSource): Turn[] {
  const part: LazyTurns = { kind: 'turns', ...sealed, size, source, tail, copies: new Map(), tailIndex: new Map() };
  tail.forEach((turn, i) => part.tailIndex.set(turn.turnId, i));
  const view = arrayView<Turn>(
    part,
    (i) => part.copies.get(i) ?? (segmentOf(part, Math.floor(i / size))[i % size] as Turn),
    (i, turn) => part.copies.set(i, turn),
    (i, turn) => part.tailIndex.set(turn.turnId, i),
  );
  parts.set(view, part);
  return view;
}

/** The index of the turn `turnId` in a lazy turns view (-1: none), or undefined for a plain array. */
export function lazyTurnIndex(turns: Turn[], turnId: string): number | undefined {
  const part = parts.get(turns);
  if (part?.kind !== 'turns') return undefined;
  const sealedCount = part.refs.length * part.size;
  const inTail = part.tailIndex.get(turnId);
  if (inTail !== undefined && part.tail[inTail]?.turnId === turnId) return sealedCount + inTail;
  const found = findSealed(part, turnId, (item) => (item as Turn).turnId);
  return found ? found.s * part.size + found.i : -1;
}

/** A tool-call record over sealed segments (items `[key, ToolCall]`, in the record's order) and the tail. */
export function lazyToolCalls(sealed: SealedRefs, size: number, tail: Record<string, ToolCall>, source: SegmentSource): Record<string, ToolCall> {
  const part: LazyToolCalls = { kind: 'toolCalls', ...sealed, size, source, tail: new Map(Object.entries(tail)), copies: new Map() };
  const keyAt = (item: unknown) => (item as readonly [string, ToolCall])[0];
  const sealedCall = (key: string): ToolCall | undefined => {
    const copy = part.copies.get(key);
    if (copy) return copy;
    const found = findSealed(part, key, keyAt);
    return found ? (segmentOf(part, found.s)[found.i] as readonly [string, ToolCall])[1] : undefined;
  };
  const value = (key: string): ToolCall | undefined => part.tail.get(key) ?? sealedCall(key);
  const has = (key: string) => part.tail.has(key) || sealedCall(key) !== undefined;
  const keys = (): string[] => {
    requireAll(part);
    const all: string[] = [];
    for (let s = 0; s < part.refs.length; s++) for (const item of segmentOf(part, s)) all.push(keyAt(item));
    for (const key of part.tail.keys()) all.push(key);
    return all;
  };
  const view = new Proxy({} as Record<string, ToolCall>, {
    get: (_target, key) => (typeof key === 'string' ? value(key) : undefined),
    set: (_target, key, call: ToolCall) => {
      if (typeof key !== 'string') return false;
      if (!part.tail.has(key) && sealedCall(key) !== undefined) part.copies.set(key, call);
      else part.tail.set(key, call);
      return true;
    },
    deleteProperty: () => {
      throw new Error('a tool-call view does not delete entries');
    },
    has: (_target, key) => typeof key === 'string' && has(key),
    getOwnPropertyDescriptor: (_target, key) => {
      if (typeof key !== 'string') return undefined;
      const call = value(key);
      return call === undefined ? undefined : { value: call, writable: true, enumerable: true, configurable: true };
    },
    ownKeys: () => keys(),
    defineProperty: () => false,
  });
  parts.set(view, part);
  return view;
}

/** A timeline over sealed segments (items: parent versions) and the tail. */
export function lazyTimeline(refs: string[], size: number, tail: number[], source: SegmentSource): number[] {
  const part: LazyTimeline = { kind: 'timeline', refs, filters: [], filterTexts: [], size, source, tail };
  const view = arrayView<number>(
    part,
    (i) => segmentOf(part, Math.floor(i / size))[i % size] as number,
    () => {
      throw new Error('the timeline is append-only');
    },
  );
  parts.set(view, part);
  return view;
}

/** Every sealed item of a view as a plain container (all its segments must be in memory). */
export function materialisedTurns(part: LazyTurns): Turn[] {
  requireAll(part);
  const turns: Turn[] = [];
  for (let s = 0; s < part.refs.length; s++) {
    const items = segmentOf(part, s) as readonly Turn[];
    for (let i = 0; i < items.length; i++) turns.push(part.copies.get(s * part.size + i) ?? items[i]!);
  }
  for (const turn of part.tail) turns.push(turn);
  return turns;
}

export function materialisedToolCalls(part: LazyToolCalls): Record<string, ToolCall> {
  requireAll(part);
  const calls: Record<string, ToolCall> = {};
  for (let s = 0; s < part.refs.length; s++) {
    for (const [key, call] of segmentOf(part, s) as readonly (readonly [string, ToolCall])[]) calls[key] = part.copies.get(key) ?? call;
  }
  for (const [key, call] of part.tail) calls[key] = call;
  return calls;
}

export function materialisedTimeline(part: LazyTimeline): number[] {
  requireAll(part);
  return ([] as number[]).concat(...part.refs.map((_, s) => segmentOf(part, s) as readonly number[]), part.tail);
}
