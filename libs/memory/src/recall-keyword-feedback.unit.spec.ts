import { describe, expect, it } from 'vitest';
import type { MemoryItem } from './memory-item';
import { blendKeywordLists, expansionTerms, NO_KEYWORD_FEEDBACK, wantsKeywordFeedback } from './recall-keyword-feedback';
import type { ScoredItem } from './vector-index';

const hit = (id: string, score: number): ScoredItem => ({ item: { id, text: id } as MemoryItem, score });

describe('expansionTerms', () => {
  const seeds = [
    { text: '[1 May 2023] Melanie: We went camping with the kids by the lake.', score: 1 },
    { text: '[8 May 2023] Melanie: The kids loved the pottery class, we are going camping again.', score: 0.8 },
    { text: '[9 May 2023] Caroline: Pottery sounds like fun!', score: 0.5 },
  ];
  const background = [...seeds.map((s) => s.text), 'Melanie: Good morning!', 'Caroline: I read a book about the lake.', 'Melanie: The weather was nice.'];

  it('takes the words several best hits share, rarest among the candidates first', () => {
    expect(expansionTerms('What activities has Melanie done?', seeds, background, 3)).toEqual(['camping', 'kids', 'pottery']);
  });

  it('leaves out the question’s own words, speaker labels, dates and chat filler', () => {
    const terms = expansionTerms('What did Melanie do camping?', seeds, background, 10);
    expect(terms).not.toContain('camping');
    expect(terms).not.toContain('melanie');
    expect(terms).not.toContain('may');
    expect(terms).not.toContain('going');
  });

  it('needs a word in two seeds when given several, not when given one', () => {
    expect(expansionTerms('Where?', seeds.slice(0, 2), background, 10)).not.toContain('lake');
    expect(expansionTerms('Where?', seeds.slice(0, 1), background, 10)).toContain('lake');
  });

  it('gives nothing for no seeds or no count', () => {
    expect(expansionTerms('What?', [], background, 5)).toEqual([]);
    expect(expansionTerms('What?', seeds, background, 0)).toEqual([]);
  });
});

describe('blendKeywordLists', () => {
  it('sums each list’s scores scaled by its best, by the weight', () => {
    const blended = blendKeywordLists([hit('a', 10), hit('b', 5)], [hit('b', 2), hit('c', 1)], 0.5);
    expect(blended.map((h) => [h.item.id, h.score])).toEqual([
      ['b', 0.75],
      ['a', 0.5],
      ['c', 0.25],
    ]);
  });

  it('keeps the first list as it is at weight 0', () => {
    expect(blendKeywordLists([hit('a', 4), hit('b', 2)], [hit('c', 9)], 0).map((h) => h.item.id)).toEqual(['a', 'b']);
  });
});

describe('wantsKeywordFeedback', () => {
  const lists = { hits: 5, terms: 5, weight: 0.3, questions: 'lists' as const };
  it('asks list questions only under `lists`, every question under `all`, none when off', () => {
    expect(wantsKeywordFeedback('What activities has Melanie done?', lists)).toBe(true);
    expect(wantsKeywordFeedback('Where did Melanie go camping?', lists)).toBe(false);
    expect(wantsKeywordFeedback('Where did Melanie go camping?', { ...lists, questions: 'all' })).toBe(true);
    expect(wantsKeywordFeedback('What activities has Melanie done?', NO_KEYWORD_FEEDBACK)).toBe(false);
  });
});
