import type { ScoredItem } from './vector-index';

/**
 * The convex fusion's core: every candidate of either list with its score
 * (1 − denseWeight) × keyword term + denseWeight × dense term, in first-seen order.
 *
 * Keyword term: BM25 scaled by the list's best (0 for an item that matches nothing: the weakest match
 * listed is not put level with no match at all). Dense term: the cosine min-max scaled over the
 * candidates that have a vector — a keyword hit the vector list did not reach gets its own cosine
 * (from its stored vector), not none.
 *
 * While the index catches up (stage 1 admitted an item's words, stage 2 has not yet attached its
 * vector) some candidates have no vector. Such an item is never penalised for it: its dense term is
 * its own keyword term (so with no vectors at all the order is exactly BM25's), and a vector only
 * ever lifts an item above where its keywords put it — its dense term is the better of its scaled
 * cosine and its keyword term — so a poor cosine cannot drop it below a vectorless item its
 * keywords beat. When every candidate has its vector, nothing of this applies: the caught-up
 * ranking is the plain convex combination.
 *
 * `vectorless`: what a keyword hit without a vector means. `pending` (an index with two stages, whose
 * keyword hits carry the vector when it has one: SQLite, PostgreSQL): not embedded yet, as above.
 * `unread` (an index whose keyword search does not read vectors, e.g. Qdrant's): it has one, unseen,
 * so it is scored by its keywords only, as the convex fusion always has.
 */
export function convexFusion(
  query: Float32Array,
  byVector: readonly ScoredItem[],
  byText: readonly ScoredItem[],
  denseWeight: number,
  vectorless: 'pending' | 'unread' = 'pending',
): ScoredItem[] {
  const cosines = new Map<string, number>();
  for (const hit of byVector) cosines.set(hit.item.id, hit.score);
  for (const hit of byText) if (!cosines.has(hit.item.id) && hit.vector) cosines.set(hit.item.id, dot(query, hit.vector));
  const values = [...cosines.values()];
  const [min, max] = [Math.min(...values), Math.max(...values)];
  const best = Math.max(0, ...byText.map((h) => h.score));
  const keyword = new Map<string, number>();
  for (const hit of byText) if (!keyword.has(hit.item.id)) keyword.set(hit.item.id, best > 0 ? Math.max(0, hit.score) / best : 1);

  const fused = new Map<string, ScoredItem>();
  for (const hit of [...byVector, ...byText]) {
    if (!fused.has(hit.item.id)) fused.set(hit.item.id, { item: hit.item, score: 0, ...(hit.vector ? { vector: hit.vector } : {}) });
  }
  const catchingUp = vectorless === 'pending' && [...fused.keys()].some((id) => !cosines.has(id));
  for (const [id, entry] of fused) {
    const words = keyword.get(id) ?? 0;
    const cosine = cosines.get(id);
    const scaled = cosine === undefined ? undefined : max > min ? (cosine - min) / (max - min) : 1;
    const dense = scaled === undefined ? (catchingUp ? words : 0) : catchingUp ? Math.max(scaled, words) : scaled;
    entry.score = (1 - denseWeight) * words + denseWeight * dense;
  }
  return [...fused.values()];
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
