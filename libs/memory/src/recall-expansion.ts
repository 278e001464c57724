import { EVERYDAY_WORDS } from './everyday-words';
import type { ScoredItem } from './vector-index';

/** A question's word as the table's key: lower case, a regular plural made singular ("families" → "family", "pets" → "pet"). */
function keyOf(word: string, table: Readonly<Record<string, readonly string[]>>): string | null {
  if (word in table) return word;
  for (const [suffix, replacement] of [
    ['ies', 'y'],
    ['ren', ''], // children → child
    ['es', ''],
    ['s', ''],
  ] as const) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) {
      const singular = word.slice(0, -suffix.length) + replacement;
      if (singular in table) return singular;
    }
  }
  return null;
}

/**
 * The everyday words a conversation may use for the question's words ("family" → "fam", "kids",
 * "hubby"…), minus those the question already says: searched by keywords beside the question, at a
 * lower weight. Only Latin words are looked up, so a question in Chinese (or any language the table
 * does not hold) gets none.
 */
export function everydayExpansion(query: string, table: Readonly<Record<string, readonly string[]>> = EVERYDAY_WORDS): string[] {
  const words = (
    query
      .normalize('NFKC')
      .toLowerCase()
      .match(/[a-z]+(?:-[a-z]+)*/g) ?? []
  ).filter((w) => w.length > 1);
  const said = new Set(words);
  const extra = new Set<string>();
  for (const word of words) {
    const key = keyOf(word, table);
    if (key === null) continue;
    for (const other of table[key]!) if (!said.has(other) && other !== key) extra.add(other);
  }
  return [...extra];
}

/**
 * The question's keyword list with a second one (the expansion's) blended in: each item's BM25 plus
 * `weight` of its expansion score, the expansion scaled so that its best equals the question's best.
 * An item only the expansion found joins the list; the order is by the blended score.
 */
export function blendKeywordLists(byQuestion: readonly ScoredItem[], byExpansion: readonly ScoredItem[], weight: number): ScoredItem[] {
  if (weight <= 0 || byExpansion.length === 0) return [...byQuestion];
  const best = Math.max(0, ...byQuestion.map((hit) => hit.score));
  const bestExpansion = Math.max(0, ...byExpansion.map((hit) => hit.score));
  if (bestExpansion <= 0) return [...byQuestion];
  const scale = (weight * (best > 0 ? best : 1)) / bestExpansion;
  const blended = new Map(byQuestion.map((hit) => [hit.item.id, { ...hit }]));
  for (const hit of byExpansion) {
    const gain = scale * Math.max(0, hit.score);
    const entry = blended.get(hit.item.id);
    if (entry) entry.score += gain;
    else blended.set(hit.item.id, { ...hit, score: gain });
  }
  return [...blended.values()].sort((a, b) => b.score - a.score);
}
