import type { ScoredItem } from './vector-index';

/**
 * How the lists of a question's sub-questions (query-decomposer.ts) join the question's own list.
 * `weight`: a sub-question's best hit against the question's best (0 turns decomposition off).
 */
export interface DecompositionOptions {
  weight: number;
  /** Sub-questions searched at most per question (each one embedding and one search pair more). */
  maxSubQuestions?: number;
  /** The default decomposer's facet rule (query-decomposer.ts DecomposerRules.facets). */
  facets?: boolean;
  /**
   * `score` (default): each list's scores scaled by its best; `rank`: each hit scores weight / its rank
   * in its list (the question's own at weight 1), so at weight 1 the lists take turns.
   */
  by?: 'score' | 'rank';
  /** Keep only a sub-question's hits labelled with a speaker the question names (recall-speaker.ts ofNamedSpeaker), when it names some but not all. */
  namedSpeakerOnly?: boolean;
}

/**
 * One ranking from the question's list and its sub-questions' lists. Each list's scores are scaled by
 * its own best (each list was fused from both signals with convexFusion, which already ranks an item
 * without a vector fairly: its keyword score stands in for its cosine), so a sub-question whose
 * evidence scores low in absolute terms still brings its best hits up. An item takes the better of its
 * scaled score in the question's list and `weight` × its best scaled score in any sub-question's list:
 * the best of each part of the question reach the top hits, where the question's own list alone lets
 * the part with the most matching words crowd out the others.
 */
export function fuseSubQuestions(
  main: readonly ScoredItem[],
  subs: readonly (readonly ScoredItem[])[],
  weight: number,
  by: 'score' | 'rank' = 'score',
): ScoredItem[] {
  if (weight <= 0 || subs.every((list) => list.length === 0)) return [...main];
  const scaled = (list: readonly ScoredItem[]) => {
    if (by === 'rank') {
      const rank = new Map(list.map((hit, i) => [hit.item.id, i + 1]));
      return (hit: ScoredItem) => 1 / rank.get(hit.item.id)!;
    }
    const best = Math.max(0, ...list.map((hit) => hit.score));
    return (hit: ScoredItem) => (best > 0 ? hit.score / best : 0);
  };
  const merged = new Map<string, { hit: ScoredItem; score: number; order: number }>();
  const offer = (hit: ScoredItem, score: number) => {
    const entry = merged.get(hit.item.id);
    if (!entry) merged.set(hit.item.id, { hit, score, order: merged.size });
    else if (score > entry.score) entry.score = score;
  };
  const ofMain = scaled(main);
  for (const hit of main) offer(hit, ofMain(hit));
  for (const list of subs) {
    const ofSub = scaled(list);
    for (const hit of list) offer(hit, weight * ofSub(hit));
  }
  return [...merged.values()].sort((a, b) => b.score - a.score || a.order - b.order).map(({ hit, score }) => ({ ...hit, score }));
}
