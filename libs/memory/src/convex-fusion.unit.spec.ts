import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convexFusion, dot } from './convex-fusion';
import { memoryItem } from './testing';
import type { ScoredItem } from './vector-index';

const D = 4;
const unit = (v: number[]) => {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return Float32Array.from(v.map((x) => x / norm));
};
const vectorArb = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: D, maxLength: D }).map(unit);

interface Candidate {
  id: string;
  /** BM25 score (distinct per candidate, so the keyword order is total). */
  bm25: number;
  vector?: Float32Array;
  /** Whether the vector list reached it (only with a vector). */
  inVectorList: boolean;
}

/** Candidates with distinct keyword scores, each with or without a vector. */
const candidatesArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 1000 }), { minLength: 2, maxLength: 12 })
  .chain((scores) =>
    fc.tuple(
      ...scores.map((bm25, i) =>
        fc
          .record({ vector: fc.option(vectorArb, { nil: undefined }), inVectorList: fc.boolean() })
          .map(({ vector, inVectorList }): Candidate => ({ id: `e${i}:0`, bm25, ...(vector ? { vector } : {}), inVectorList: inVectorList && !!vector })),
      ),
    ),
  );

function lists(query: Float32Array, candidates: Candidate[]): { byVector: ScoredItem[]; byText: ScoredItem[] } {
  const scored = (c: Candidate, score: number): ScoredItem => ({
    item: memoryItem({ id: c.id, text: c.id }),
    score,
    ...(c.vector ? { vector: c.vector } : {}),
  });
  return {
    byVector: candidates
      .filter((c) => c.inVectorList)
      .map((c) => scored(c, dot(query, c.vector!)))
      .sort((a, b) => b.score - a.score),
    byText: candidates.map((c) => scored(c, c.bm25)).sort((a, b) => b.score - a.score),
  };
}

const scoresOf = (fused: ScoredItem[]) => new Map(fused.map((s) => [s.item.id, s.score]));

/** The convex fusion as it was before items without vectors were treated fairly: the caught-up ranking must not move. */
function before(query: Float32Array, byVector: ScoredItem[], byText: ScoredItem[], w: number): Map<string, number> {
  const fused = new Map<string, number>();
  const cosines = new Map<string, number>();
  for (const hit of byVector) cosines.set(hit.item.id, hit.score);
  for (const hit of byText) if (!cosines.has(hit.item.id) && hit.vector) cosines.set(hit.item.id, dot(query, hit.vector));
  const values = [...cosines.values()];
  const [min, max] = [Math.min(...values), Math.max(...values)];
  const best = Math.max(0, ...byText.map((h) => h.score));
  for (const hit of [...byVector, ...byText]) fused.set(hit.item.id, 0);
  for (const hit of byText) fused.set(hit.item.id, fused.get(hit.item.id)! + (1 - w) * (best > 0 ? Math.max(0, hit.score) / best : 1));
  for (const [id, cosine] of cosines) fused.set(id, fused.get(id)! + w * (max > min ? (cosine - min) / (max - min) : 1));
  return fused;
}

const weightArb = fc.double({ min: 0, max: 1, noNaN: true });

describe('convexFusion (items stage 2 has not embedded yet)', () => {
  it('with no vectors at all, orders the candidates exactly as the keyword list does', () => {
    fc.assert(
      fc.property(vectorArb, candidatesArb, weightArb, (query, candidates, w) => {
        const { byText } = lists(
          query,
          candidates.map(({ vector: _, ...c }) => ({ ...c, inVectorList: false })),
        );
        const fused = convexFusion(query, [], byText, w).sort((a, b) => b.score - a.score);
        expect(fused.map((s) => s.item.id)).toEqual(byText.map((s) => s.item.id));
      }),
    );
  });

  it('never puts an item with a vector below a vectorless item its keywords beat, so adding a vector never lowers an item among the vectorless', () => {
    fc.assert(
      fc.property(vectorArb, candidatesArb, weightArb, fc.nat(), vectorArb, fc.boolean(), (query, candidates, w, pick, added, reached) => {
        // One vectorless candidate gains its vector (as stage 2 attaches it); every other stays as it was.
        const target = candidates[pick % candidates.length]!;
        const after = candidates.map((c) => (c.id === target.id ? { ...c, vector: added, inVectorList: reached } : c));
        for (const state of [candidates, after]) {
          const { byVector, byText } = lists(query, state);
          const scores = scoresOf(convexFusion(query, byVector, byText, w));
          for (const x of state.filter((c) => c.vector))
            for (const y of state.filter((c) => !c.vector && c.bm25 < x.bm25)) expect(scores.get(x.id)!).toBeGreaterThan(scores.get(y.id)!);
        }
        // The item's place among the vectorless items is at least the one its keywords alone give it.
        const { byVector, byText } = lists(query, after);
        const scores = scoresOf(convexFusion(query, byVector, byText, w));
        const vectorless = after.filter((c) => !c.vector);
        const aboveByKeywords = vectorless.filter((y) => y.bm25 > target.bm25).length;
        const aboveFused = vectorless.filter((y) => scores.get(y.id)! > scores.get(target.id)!).length;
        expect(aboveFused).toBeLessThanOrEqual(aboveByKeywords);
      }),
    );
  });

  it('with every vector present, scores every candidate exactly as the convex fusion always has (caught-up recall unchanged)', () => {
    fc.assert(
      fc.property(vectorArb, candidatesArb, vectorArb, weightArb, (query, candidates, fallback, w) => {
        const every = candidates.map((c) => ({ ...c, vector: c.vector ?? fallback }));
        const { byVector, byText } = lists(query, every);
        const expected = before(query, byVector, byText, w);
        const fused = convexFusion(query, byVector, byText, w);
        expect(fused.map((s) => s.item.id)).toEqual([...expected.keys()]);
        for (const s of fused) expect(s.score).toBeCloseTo(expected.get(s.item.id)!, 12);
      }),
    );
  });

  it('scores a vectorless keyword hit by its keywords on both terms, and the vector holders by their cosine among themselves', () => {
    const query = unit([1, 0, 0, 0]);
    const item = (id: string) => memoryItem({ id, text: id });
    const near = { item: item('near:0'), score: 1, vector: unit([1, 0, 0, 0]) };
    const far = { item: item('far:0'), score: 0, vector: unit([0, 1, 0, 0]) };
    const fresh = { item: item('fresh:0'), score: 4 };
    const scores = scoresOf(convexFusion(query, [near, far], [fresh, { ...far, score: 2 }], 0.3));
    expect(scores.get('fresh:0')).toBeCloseTo(1, 12); // best keyword hit: 0.7 × 1 + 0.3 × 1 (imputed)
    expect(scores.get('far:0')).toBeCloseTo(0.5, 12); // 0.7 × 0.5 + 0.3 × max(0, 0.5): its poor cosine does not sink it
    expect(scores.get('near:0')).toBeCloseTo(0.3, 12); // no keyword match: 0.3 × its cosine's 1
  });
});

describe('convexFusion over an index whose keyword hits do not carry vectors (Qdrant)', () => {
  it('scores a keyword hit without a vector by its keywords only, exactly as before', () => {
    fc.assert(
      fc.property(vectorArb, candidatesArb, weightArb, (query, candidates, w) => {
        const { byVector, byText } = lists(query, candidates);
        const unread = byText.map(({ vector: _, ...hit }) => hit);
        const expected = before(query, byVector, unread, w);
        for (const s of convexFusion(query, byVector, unread, w, 'unread')) expect(s.score).toBeCloseTo(expected.get(s.item.id)!, 12);
      }),
    );
  });
});
