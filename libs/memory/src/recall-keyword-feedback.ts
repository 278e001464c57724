import { asksForList } from './recall-question';
import { searchTokens } from './search-tokens';
import type { ScoredItem } from './vector-index';

/**
 * Keyword pseudo-relevance feedback (RM3-like): the words the first pass's best hits share, and
 * that the question lacks, searched by keywords once more beside the question's own words. A
 * question asking for a list ("What activities has Melanie done?") is answered by turns spread
 * over a conversation that share words with each other ("camping", "kids") more than with the
 * question.
 */
export interface KeywordFeedbackOptions {
  /** Best fused hits the words are taken from (0 turns it off). */
  hits: number;
  /** Words added to the question. */
  terms: number;
  /** Share of the keyword score that comes from the expanded search (the rest from the question's own). */
  weight: number;
  /** `lists`: only for questions asking for several things (asksForList); `all`: every question. */
  questions: 'lists' | 'all';
}

export const NO_KEYWORD_FEEDBACK: KeywordFeedbackOptions = { hits: 0, terms: 0, weight: 0, questions: 'all' };

/** Whether this question gets a feedback search under these options. */
export function wantsKeywordFeedback(query: string, options: KeywordFeedbackOptions): boolean {
  return options.hits > 0 && options.terms > 0 && options.weight > 0 && (options.questions === 'all' || asksForList(query));
}

/**
 * Chat filler that the index's stop words keep (they are few, for precision) but that says
 * nothing about a topic: never an expansion word.
 */
const FILLER = new Set(
  (
    'about actually after again all also always am any anything back been before being both can cool could definitely ' +
    'doing done even ever every feel feeling felt first get getting go going good got great hey hi just know last let ' +
    'like lot love lots made make more most much need new nice now oh ok okay one only other out over pretty really ' +
    'right said say see so some something still sure than thank thanks thats thing things think time too totally ' +
    'up very want way well what while would wow yeah yes yet you re ve ll s t d m'
  ).split(' '),
);

/** A message's words for feedback: its `[stamp] Speaker:` label left out (every message of that speaker has it). */
function contentWords(text: string): string[] {
  const body = text.replace(/^\s*(?:\[[^\]\n]{1,80}\]\s*)?(?:[\p{Lu}][\p{L}'’.-]*(?: [\p{Lu}][\p{L}'’.-]*){0,2}:\s)?/u, '');
  return searchTokens(body, { dropStopWords: true }).filter((w) => w.length > 2 && !FILLER.has(w) && !/^\d+$/.test(w));
}

/**
 * The `count` words most weighed by the relevance model of the `seeds` (each seed's words by their
 * share of its length, times the seed's score), times their rarity among the `background` texts
 * (log of texts / texts holding the word): common words of the candidates say little. Words of the
 * question are left out (it already has them); so is a word found in one seed only when several
 * seeds were given, since one turn's own words pull that turn's neighbours, not the rest of a list.
 */
export function expansionTerms(question: string, seeds: readonly { text: string; score: number }[], background: readonly string[], count: number): string[] {
  if (count <= 0 || seeds.length === 0) return [];
  const asked = new Set(searchTokens(question));
  const documents = background.map((text) => new Set(contentWords(text)));
  const rarity = (word: string) => Math.log((documents.length + 1) / (1 + documents.filter((d) => d.has(word)).length));
  const weight = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const seed of seeds) {
    const words = contentWords(seed.text);
    for (const word of new Set(words)) seen.set(word, (seen.get(word) ?? 0) + 1);
    for (const word of words) weight.set(word, (weight.get(word) ?? 0) + seed.score / words.length);
  }
  const minimumSeeds = seeds.length > 1 ? 2 : 1;
  return [...weight]
    .filter(([word]) => !asked.has(word) && seen.get(word)! >= minimumSeeds)
    .map(([word, w]) => ({ word, w: w * rarity(word) }))
    .filter((t) => t.w > 0)
    .sort((a, b) => b.w - a.w || (a.word < b.word ? -1 : 1))
    .slice(0, count)
    .map((t) => t.word);
}

/**
 * The question's keyword list and the expanded search's as one: each item's score the weighted sum
 * of its score in each, scaled by that list's best (an item missing from a list scores 0 there),
 * best first.
 */
export function blendKeywordLists(first: readonly ScoredItem[], second: readonly ScoredItem[], weight: number): ScoredItem[] {
  const blended = new Map<string, ScoredItem>();
  const add = (list: readonly ScoredItem[], share: number) => {
    const best = Math.max(0, ...list.map((h) => h.score));
    if (best <= 0 || share <= 0) return;
    for (const hit of list) {
      const entry = blended.get(hit.item.id) ?? { ...hit, score: 0 };
      entry.score += (share * Math.max(0, hit.score)) / best;
      blended.set(hit.item.id, entry);
    }
  };
  add(first, 1 - weight);
  add(second, weight);
  for (const hit of first) if (!blended.has(hit.item.id)) blended.set(hit.item.id, { ...hit, score: 0 });
  return [...blended.values()].sort((a, b) => b.score - a.score);
}
