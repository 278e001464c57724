import type { ScoredItem } from './vector-index';

/**
 * Diversity in the top hits (maximal marginal relevance): the hits are chosen one at a time, and a
 * candidate loses score for what the hits already chosen say. Questions whose evidence is spread
 * over a conversation ("What activities does Melanie do?") otherwise fill the top k with one
 * exchange about one activity.
 */
export interface DiversityOptions {
  /** Score taken off (as a share of the best hit's) per unit of cosine with the closest hit already chosen; 0 turns it off. */
  similarity: number;
  /** Score taken off (as a share of the best hit's) when a chosen hit of the same session lies within `window` turns; 0 turns it off. */
  nearby: number;
  /** How far, in turns (versions), "the same exchange" reaches. */
  window: number;
  /** The best candidates re-ordered (the others keep their order after them). */
  pool: number;
  /** Which questions: every one, or only those asking for several things (recall-question.ts: asksForList). */
  questions?: 'all' | 'lists';
}

export const NO_DIVERSITY: DiversityOptions = { similarity: 0, nearby: 0, window: 0, pool: 0 };

/**
 * The candidates (best first) re-ordered greedily: each step takes the candidate whose score, less
 * the penalties from the hits already taken, is highest. Scores stay comparable with the fused
 * ones (the reported score is the penalised one, never above the hit before it).
 */
export function diversify(ranked: readonly ScoredItem[], options: DiversityOptions): ScoredItem[] {
  if ((options.similarity <= 0 && options.nearby <= 0) || ranked.length < 2) return [...ranked];
  const pool = ranked.slice(0, Math.max(2, options.pool));
  const best = Math.max(pool[0]!.score, Number.EPSILON);
  const closest = new Array<number>(pool.length).fill(0);
  const near = new Array<boolean>(pool.length).fill(false);
  const taken = new Array<boolean>(pool.length).fill(false);
  const chosen: ScoredItem[] = [];
  let ceiling = Infinity;
  for (let step = 0; step < pool.length; step++) {
    let pick = -1;
    let pickScore = -Infinity;
    for (let i = 0; i < pool.length; i++) {
      if (taken[i]) continue;
      const penalty = options.similarity * Math.max(0, closest[i]!) + (near[i] ? options.nearby : 0);
      const score = pool[i]!.score - penalty * best;
      if (score > pickScore) [pick, pickScore] = [i, score];
    }
    taken[pick] = true;
    const hit = pool[pick]!;
    ceiling = Math.min(ceiling, pickScore);
    chosen.push({ ...hit, score: ceiling });
    for (let i = 0; i < pool.length; i++) {
      if (taken[i]) continue;
      const other = pool[i]!;
      if (options.similarity > 0 && hit.vector && other.vector) closest[i] = Math.max(closest[i]!, cosine(hit.vector, other.vector));
      if (options.nearby > 0 && other.item.sessionId === hit.item.sessionId && Math.abs(other.item.version - hit.item.version) <= options.window)
        near[i] = true;
    }
  }
  return [...chosen, ...ranked.slice(pool.length).map((hit) => ({ ...hit, score: Math.min(hit.score, ceiling) }))];
}

/** Stored vectors are unit length: the dot product is the cosine. */
function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
