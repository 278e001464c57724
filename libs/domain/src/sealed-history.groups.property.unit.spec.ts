import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idFilter, SLICED_GROUP } from './id-filter';
import { HistoryNotLoaded, lazyToolCalls, lazyTurnIndex, lazyTurns, type SegmentSource } from './sealed-history';
import type { ToolCall, Turn } from './turn-records';

const RUNS = Math.max(1, Math.floor(Number(process.env.REWIND_PROPERTY_RUNS ?? 1000) / 10));
const SIZE = 2;
const turn = (turnId: string): Turn => ({ turnId, status: 'open', startedVersion: 1, messages: [] });
const call = (toolCallId: string) => ({ toolCallId, tool: 't', status: 'started' }) as unknown as ToolCall;

/** Sealed segments of SIZE items each (the rest a tail), their filters as the engine makes them, and a source that holds some. */
function sealed<T>(items: T[], idOf: (item: T) => string, held: (s: number) => boolean, stored: (item: T) => unknown = (item) => item) {
  const count = Math.floor(items.length / SIZE);
  const segments = new Map<string, readonly unknown[]>();
  const refs: string[] = [];
  const filters: Uint8Array[] = [];
  for (let s = 0; s < count; s++) {
    const chunk = items.slice(s * SIZE, (s + 1) * SIZE);
    refs.push(`seg-${s}`);
    filters.push(idFilter(chunk.map(idOf)));
    if (held(s)) segments.set(`seg-${s}`, chunk.map(stored));
  }
  const source: SegmentSource = { get: (id) => segments.get(id) };
  return { refs, filters, filterTexts: filters.map(() => ''), source, tail: items.slice(count * SIZE), count };
}

describe('lookups over more sealed segments than one bit-sliced group (property-based)', () => {
  it('find every held id where a scan finds it, no absent one, and name exactly the segments a scan would need loaded', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: SLICED_GROUP * SIZE, max: SLICED_GROUP * SIZE * 4 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 10 }),
        (n, seed, absent) => {
          const ids = Array.from({ length: n }, (_, i) => `turn-${seed}-${i}`);
          // Every segment in memory: each id is found at its index, an absent one nowhere.
          const all = sealed(
            ids.map(turn),
            (t) => t.turnId,
            () => true,
          );
          const turns = lazyTurns(all, SIZE, all.tail, all.source);
          ids.forEach((id, i) => expect(lazyTurnIndex(turns, id)).toBe(i));
          for (const id of absent) expect(lazyTurnIndex(turns, id)).toBe(ids.includes(id) ? ids.indexOf(id) : -1);
          // Only every third segment in memory: a sealed id outside them asks for its own segment (and any false maybe), never finds a wrong one.
          // Tool-call segments hold [key, call] entries, in the record's order.
          const some = sealed(
            ids.map(call),
            (c) => c.toolCallId,
            (s) => s % 3 === 0,
            (c) => [c.toolCallId, c],
          );
          const calls = lazyToolCalls(some, SIZE, Object.fromEntries(some.tail.map((c) => [c.toolCallId, c])), some.source);
          ids.forEach((id, i) => {
            const s = Math.floor(i / SIZE);
            if (s >= some.count || s % 3 === 0) return expect(calls[id]?.toolCallId).toBe(id);
            let missing: readonly string[] = [];
            try {
              // Throws HistoryNotLoaded (its segment is not in memory); an answer, even undefined, fails below.
              expect(calls[id]).toBeUndefined();
            } catch (error) {
              if (!(error instanceof HistoryNotLoaded)) throw error;
              missing = error.segmentIds;
            }
            expect(missing).toContain(`seg-${s}`);
            expect(missing.every((ref) => Number(ref.slice(4)) % 3 !== 0)).toBe(true);
          });
        },
      ),
      { numRuns: RUNS },
    );
  });
});
