import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryItem } from './memory-item';
import { fuseSubQuestions } from './recall-decomposition';
import type { ScoredItem } from './vector-index';

const hit = (id: string, score: number): ScoredItem => ({
  item: { id, tenantId: 't1', sessionId: 's1', eventId: id, version: 1, globalPosition: 1, role: 'agent', occurredAt: '', chunk: 0, text: id } as MemoryItem,
  score,
});
const ids = (hits: readonly ScoredItem[]) => hits.map((h) => h.item.id);

describe("fusing a question's sub-questions", () => {
  it("brings a sub-question's best hit up among the question's own, whatever its absolute score", () => {
    // The question's list is crowded by one part ("Priya"); the other part's evidence scores low in absolute terms.
    const main = [hit('priya-1', 9), hit('priya-2', 8), hit('priya-3', 7), hit('tomasz-1', 1)];
    const tomasz = [hit('tomasz-1', 0.3), hit('tomasz-2', 0.2)];
    expect(ids(fuseSubQuestions(main, [tomasz], 0.9))).toEqual(['priya-1', 'tomasz-1', 'priya-2', 'priya-3', 'tomasz-2']);
  });

  it('by rank at weight 1, the question and its sub-questions take turns', () => {
    const main = [hit('a1', 9), hit('a2', 8.9), hit('a3', 8.8)];
    const subs = [
      [hit('b1', 0.3), hit('b2', 0.1)],
      [hit('c1', 5), hit('a2', 4)],
    ];
    expect(ids(fuseSubQuestions(main, subs, 1, 'rank'))).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('changes nothing at weight 0 or without sub-questions', () => {
    const main = [hit('a', 2), hit('b', 1)];
    expect(fuseSubQuestions(main, [[hit('c', 5)]], 0)).toEqual(main);
    expect(fuseSubQuestions(main, [], 0.8)).toEqual(main);
    expect(fuseSubQuestions(main, [[]], 0.8)).toEqual(main);
  });

  it('keeps every candidate once, and the best of the main list first', () => {
    const list = fc.array(fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), score: fc.double({ min: 0.01, max: 10, noNaN: true }) }), {
      maxLength: 6,
    });
    const distinct = (l: { id: string; score: number }[]) =>
      [...new Map(l.map((h) => [h.id, h])).values()].sort((x, y) => y.score - x.score).map((h) => hit(h.id, h.score));
    fc.assert(
      fc.property(list, fc.array(list, { maxLength: 3 }), fc.double({ min: 0.01, max: 1, noNaN: true }), (m, s, weight) => {
        const main = distinct(m);
        const subs = s.map(distinct);
        const fused = fuseSubQuestions(main, subs, weight);
        const every = new Set([...main, ...subs.flat()].map((h) => h.item.id));
        expect(new Set(ids(fused))).toEqual(every);
        expect(fused.length).toBe(every.size);
        // With a sub-question's hits, the question's own best scales to 1, at or above any sub-question's best (weight ≤ 1).
        if (main.length > 0 && subs.some((l) => l.length > 0)) expect(fused[0]!.score).toBeCloseTo(1);
        for (let i = 1; i < fused.length; i++) expect(fused[i - 1]!.score).toBeGreaterThanOrEqual(fused[i]!.score);
      }),
    );
  });
});
