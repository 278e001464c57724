import { describe, expect, it } from 'vitest';
import type { MemoryScope } from '../vector-index';
import { PostgresCodeCache, type CodeRow } from './code-cache';

/** A stand-in for memory_codes: rows with stamps, a removals counter, and the reads the cache made. */
function table() {
  const rows: { seq: number; tenantId: string; code: number; stamp: number }[] = [];
  let stamp = 0;
  const state = { removals: 0, reads: [] as number[] };
  const read = async (scope: MemoryScope, after: number): Promise<CodeRow[]> => {
    state.reads.push(after);
    const found = rows.filter((r) => r.tenantId === scope.tenantId && r.stamp > after);
    const removals = String(state.removals);
    if (found.length === 0) return [{ removals, seq: null, code: null, stamp: null }];
    return found.map((r) => ({ removals, seq: String(r.seq), code: Buffer.from([r.code]), stamp: String(r.stamp) }));
  };
  return {
    state,
    read,
    put(seq: number, code: number, tenantId = 't1') {
      const existing = rows.find((r) => r.seq === seq);
      if (existing) Object.assign(existing, { code, stamp: ++stamp });
      else rows.push({ seq, tenantId, code, stamp: ++stamp });
    },
    remove(seq: number) {
      rows.splice(
        rows.findIndex((r) => r.seq === seq),
        1,
      );
      state.removals++;
    },
  };
}

describe('PostgresCodeCache (codes of a scope in memory, following the table)', () => {
  it('finds the nearest codes; reads only what is new; an updated code replaces the old in place; a removal makes it read all again', async () => {
    const t = table();
    let now = 0;
    const cache = new PostgresCodeCache(t.read, 1, undefined, () => now);
    t.put(1, 0b0000_0001);
    t.put(2, 0b1111_0000);
    t.put(3, 0b0000_0001, 't2');
    const nearest = (code: number, k = 1) => cache.nearest({ tenantId: 't1' }, Buffer.from([code]), k);
    expect(await nearest(0b0000_0011)).toEqual([1]);
    t.put(4, 0b0000_0011);
    expect(await nearest(0b0000_0011)).toEqual([4]);
    expect(t.state.reads).toEqual([0, 2]);
    // Item 4 written again elsewhere: its new code, not both.
    t.put(4, 0b1111_1111);
    expect(await nearest(0b0000_0011)).toEqual([1]);
    expect((await nearest(0, 10)).sort()).toEqual([1, 2, 4]);
    t.remove(1);
    expect(await nearest(0b0000_0011)).toEqual([2]);
    expect(t.state.reads.slice(-2)).toEqual([5, 0]);
    // A scope is read whole again after FULL_READ_MS, in case a code committed late with a lower stamp.
    now += 61_000;
    await nearest(0);
    expect(t.state.reads.at(-1)).toBe(0);
  });
});
