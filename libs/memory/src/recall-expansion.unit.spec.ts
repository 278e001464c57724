import { describe, expect, it } from 'vitest';
import { blendKeywordLists, everydayExpansion, interleave } from './recall-expansion';
import type { MemoryItem } from './memory-item';
import type { ScoredItem } from './vector-index';

const hit = (id: string, score: number): ScoredItem => ({ item: { id } as MemoryItem, score });

describe('everydayExpansion', () => {
  it('gives the everyday words for a question word, singular or plural', () => {
    expect(everydayExpansion('What activities has Melanie done with her family?')).toEqual(expect.arrayContaining(['fam', 'kids', 'hubby']));
    expect(everydayExpansion('What do her children like?')).toEqual(expect.arrayContaining(['kids', 'son', 'daughter']));
    expect(everydayExpansion('What are Melanie’s pets’ names?')).toEqual(expect.arrayContaining(['dog', 'cat']));
    expect(everydayExpansion('Which families did she visit?')).toContain('fam');
  });

  it('leaves out words the question already says', () => {
    const extra = everydayExpansion('Did her family and kids go camping?');
    expect(extra).toContain('fam');
    expect(extra).not.toContain('kids');
    expect(extra).not.toContain('family');
  });

  it('gives nothing for a question the table does not cover, or in Chinese', () => {
    expect(everydayExpansion('When did Caroline go to the LGBTQ support group?')).toEqual([]);
    expect(everydayExpansion('她的家人喜欢什么？')).toEqual([]);
  });

  it('reads the table it is given', () => {
    expect(everydayExpansion('Which cars?', { car: ['truck'] })).toEqual(['truck']);
  });
});

describe('blendKeywordLists', () => {
  it('adds the expansion score scaled to the question list, and takes in what only the expansion found', () => {
    const blended = blendKeywordLists([hit('a', 10), hit('b', 8)], [hit('b', 4), hit('c', 2)], 0.5);
    // scale: 0.5 × 10 / 4 → b gains 5, c 2.5
    expect(blended.map((h) => [h.item.id, h.score])).toEqual([
      ['b', 13],
      ['a', 10],
      ['c', 2.5],
    ]);
  });

  it('leaves the question list as it is at weight 0 or without an expansion list', () => {
    const question = [hit('a', 3), hit('b', 1)];
    expect(blendKeywordLists(question, [hit('c', 9)], 0)).toEqual(question);
    expect(blendKeywordLists(question, [], 0.3)).toEqual(question);
  });

  it('scales the expansion by its own best when the question found nothing', () => {
    expect(blendKeywordLists([], [hit('c', 4), hit('d', 2)], 0.5).map((h) => h.score)).toEqual([0.5, 0.25]);
  });
});

describe('interleave', () => {
  const ids = (hits: ScoredItem[]) => hits.map((h) => h.item.id);

  it('gives every n-th place to the next facet hit not yet placed, the rest to the ranking', () => {
    const ranked = [hit('a', 6), hit('b', 5), hit('c', 4), hit('d', 3), hit('e', 2), hit('f', 1)];
    expect(ids(interleave(ranked, [hit('a', 9), hit('e', 8), hit('f', 7)], 2))).toEqual(['a', 'e', 'b', 'f', 'c', 'd']);
  });

  it('keeps scores falling: each hit takes the score of the place it fills', () => {
    const ranked = [hit('a', 6), hit('b', 5), hit('c', 4)];
    expect(interleave(ranked, [hit('c', 9)], 2).map((h) => h.score)).toEqual([6, 5, 4]);
  });

  it('leaves the ranking as it is without a facet or with every < 1', () => {
    const ranked = [hit('a', 2), hit('b', 1)];
    expect(interleave(ranked, [], 2)).toEqual(ranked);
    expect(interleave(ranked, [hit('b', 3)], 0)).toEqual(ranked);
  });
});
