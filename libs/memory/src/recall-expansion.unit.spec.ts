import { describe, expect, it } from 'vitest';
import { blendKeywordLists, everydayExpansion } from './recall-expansion';
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
