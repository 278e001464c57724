import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planSnapshotPruning, type StoredSnapshotInfo } from './snapshot-pruning-plan';

const snapshot = (revision: number, version: number, segments: string[] = [], reducerVersion = 1): StoredSnapshotInfo => ({
  revision: BigInt(revision),
  version,
  reducerVersion,
  bytes: 100 + revision,
  segments,
});

describe('snapshot pruning on EventStoreDB (truncation of the snapshot stream)', () => {
  it('keeps the newest K, truncates before the oldest of them, and frees the segments only the removed ones used', () => {
    const stored = [snapshot(0, 100, ['a']), snapshot(1, 200, ['a', 'b']), snapshot(2, 300, ['b', 'c']), snapshot(3, 400, ['c'])];
    const plan = planSnapshotPruning(stored, 2);
    expect(plan.truncateBefore).toBe(2n);
    expect(plan.removed.map((s) => s.version)).toEqual([100, 200]);
    expect(plan.segments).toEqual(['a']);
    expect(planSnapshotPruning(stored, 4)).toEqual({ truncateBefore: null, removed: [], segments: [] });
  });

  it('cannot cut a snapshot written after one it keeps (a past version snapshotted late): it stays', () => {
    const plan = planSnapshotPruning([snapshot(0, 100), snapshot(1, 300), snapshot(2, 50), snapshot(3, 400)], 2);
    expect(plan.truncateBefore).toBe(1n);
    expect(plan.removed.map((s) => s.version)).toEqual([100]);
  });

  it('refuses a keep below 1', () => {
    expect(() => planSnapshotPruning([], 0)).toThrow(/keep must be a whole number from 1/);
  });

  it('never removes one of the newest K, never frees a segment a remaining snapshot uses, and removes only a prefix (property)', () => {
    const stored = fc
      .array(fc.record({ version: fc.nat({ max: 1000 }), reducerVersion: fc.integer({ min: 1, max: 3 }), segments: fc.subarray(['a', 'b', 'c', 'd', 'e']) }), {
        maxLength: 30,
      })
      .map((list) => list.map((s, revision) => ({ ...s, revision: BigInt(revision), bytes: 10 })));
    fc.assert(
      fc.property(stored, fc.integer({ min: 1, max: 10 }), (snapshots, keep) => {
        const plan = planSnapshotPruning(snapshots, keep);
        const newest = [...snapshots].sort((a, b) => b.version - a.version || b.reducerVersion - a.reducerVersion).slice(0, keep);
        const removed = new Set(plan.removed);
        expect(newest.some((s) => removed.has(s))).toBe(false);
        const remaining = snapshots.filter((s) => !removed.has(s));
        expect(remaining.length).toBeGreaterThanOrEqual(Math.min(keep, snapshots.length));
        const used = new Set(remaining.flatMap((s) => s.segments));
        expect(plan.segments.filter((id) => used.has(id))).toEqual([]);
        expect(plan.removed).toEqual(snapshots.slice(0, plan.removed.length));
        if (plan.truncateBefore !== null) expect(plan.truncateBefore).toBe(BigInt(plan.removed.length));
      }),
    );
  });
});
