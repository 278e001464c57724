import type { EmbeddingModel } from './embedding-model';
import type { MemoryItem } from './memory-item';
import { convexFusion, dot } from './convex-fusion';
import { informationWeight } from './low-information';
import { renderMemoryWrite } from './memory-item';
import { effectivePolicy, type MemoryPolicyStore } from './memory-policy';
import { diversify, NO_DIVERSITY, type DiversityOptions } from './recall-diversity';
import { blendKeywordLists, everydayExpansion } from './recall-expansion';
import { asksForList, fusionFor, type FusionOptions } from './recall-question';
import { favourSpeaker, ofNamedSpeaker } from './recall-speaker';
import { favourWhen } from './recall-temporal';
import { fuseSubQuestions, type DecompositionOptions } from './recall-decomposition';
import { DeterministicDecomposer, MAX_SUB_QUESTIONS, type QueryDecomposer } from './query-decomposer';
import type { QueryRewriter, RewriteResult } from './query-rewriter';
import type { Reranker } from './reranker';
import type { SessionPath, SessionPaths } from './session-paths';
import type { MemoryScope, ScoredItem, VectorIndex } from './vector-index';

export interface RecallRequest {
  tenantId: string;
  /** The asking session: its path filters session-scoped results, its recent turns feed the rewriter. */
  sessionId: string;
  query: string;
  /** Hits wanted (default 5). */
  k?: number;
  /** `session` (default): this session's path only; `tenant`: every session of the tenant, each on its current path. */
  scope?: 'session' | 'tenant';
  /** Recall as of this version of the asking session (its ancestry instead of the head's). */
  at?: number;
  /** Rewrite a vague follow-up into a standalone question first (default true). */
  rewrite?: boolean;
}

export interface RecallHit {
  text: string;
  score: number;
  sessionId: string;
  version: number;
  eventId: string;
  role: MemoryItem['role'];
  occurredAt: string;
}

export interface RecallResult {
  query: string;
  /** The question retrieval used (equal to `query` when it was not rewritten). */
  rewrittenQuery: string;
  rewriter: RewriteResult['rewriter'];
  hits: RecallHit[];
}

/**
 * How the vector and keyword lists become one. `convex` (default): each list's scores are scaled
 * to 0–1 (cosines min-max over the list, BM25 by the best) and summed with weights `denseWeight` and 1 − denseWeight, so an
 * item far ahead in one list stays ahead even when the other list misses it. `rrf`: reciprocal
 * rank fusion, 1 / (k + rank) summed over the lists — ranks only, so a keyword hit with a
 * decisive score weighs no more than a middling one.
 */
export type { FusionOptions };

/**
 * Tuned on LoCoMo conversations 1–5 (`npm run bench:locomo -- --sweep`), checked on 6–10: with
 * stemmed keywords and the previous turn in a column of its own, the keyword list is the stronger
 * one for MiniLM. R@5/10/25/50 on 1–5: dense 0.2 and 0.3 without feedback 67.7/75.9/82.1/87.1 and
 * 67.9/75.5/82.4/87.2; 0.3 and 0.4 with it (3 hits, 0.5) 67.8/75.6/82.7/87.6 and 67.5/75.5/82.9/87.4.
 */
export const DEFAULT_FUSION: FusionOptions = { method: 'convex', denseWeight: 0.3 };

/**
 * The second look (pseudo-relevance feedback), on by default: on LoCoMo 1–5 it adds ~0.5 point at
 * k ≥ 25 (dense 0.3: 67.9/75.5/82.4/87.2 without; the 3 best at weight 0.5: 67.8/75.6/82.7/87.6;
 * the 5 best at weight 1: 67.8/75.7/82.9/87.6). The first is the default: measured with the neighbours' share.
 */
export const DEFAULT_FEEDBACK = { hits: 3, weight: 0.5 } as const;

/**
 * A candidate gains this share of its better neighbouring turn's fused score (the turn before or
 * after it in its session): the question before an answer, the answer after it. On LoCoMo 1–5, with
 * the feedback above: 67.8/75.6/82.7/87.6 without, 68.2/76.1/83.4/88.4 at 0.1, 68.7/76.9/84.1/88.7 at 0.25
 * (6–10: 64.9/74.1/82.0/86.2, 66.1/74.9/81.9/86.7, 66.6/75.6/82.8/87.5).
 */
export const DEFAULT_NEIGHBOUR_WEIGHT = 0.25;

/**
 * For a question asking when, a turn that says when ("last Friday", "two weeks ago") gains this share
 * of the best score. LoCoMo temporal, R@5/10/25/50, conversations 1–5: 75.4/81.7/88.9/92.9 without,
 * 77.9/83.3/92.8/94.9 at 0.1, 79.9/83.9/92.1/94.9 at 0.2, 79.2/85.5/92.8/94.9 at 0.3, 78.3/85.8/92.1/94.9
 * at 0.35; 6–10: 57.4/67.4/74.2/82.8 → 63.5/70.6/80.3/84.1 at 0.3 (other categories within 0.5 but
 * single-hop 6–10 R@5 −0.9).
 */
export const DEFAULT_WHEN_WEIGHT = 0.3;

/**
 * LoCoMo open-domain (the 35 of its 92 questions asking for an inference), R@5/10/25/50, conversations
 * 1–5: 24.2/34.5/43.0/51.7 at the fusion's 0.3, 26.5/35.0/45.6/54.0 at 0.5, 28.0/36.9/45.1/54.0 at
 * 0.7, 19.3/28.6/42.0/47.7 at 0.9; 6–10 at 0.5: 27.6/36.8/47.0/52.9 → 28.1/37.1/47.6/53.0 (0.7:
 * 27.4/36.8/48.2/53.1). No other category has such a question.
 */
export const DEFAULT_INFERENCE_DENSE_WEIGHT = 0.5;

/**
 * Diversity in the top hits, off: on LoCoMo it moves multi-hop R@5 by under a point and costs other
 * categories about as much (conversations 1–5, multi-hop R@5/10/25: 28.7/40.1/53.0 without; cosine
 * penalty 0.2 over the 50 best: 30.6/40.5/53.9, overall 68.7 → 69.2 at R@5 but 6–10 66.6 → 65.9;
 * a penalty within 2 turns of a chosen hit lost 1–2 points overall; for questions asking for
 * several things only, 0.35: multi-hop 29.5/40.2/54.1, others unchanged within 0.5).
 */
export const DEFAULT_DIVERSITY: DiversityOptions = NO_DIVERSITY;

/**
 * For a question naming a speaker of labelled messages (`[date] Melanie: …`), that speaker's messages
 * gain this share of their own score (recall-speaker.ts). LoCoMo, R@5/10/25/50, conversations 1–5 /
 * 6–10: multi-hop 28.7/40.1/53.4/64.7 / 28.8/39.8/53.1/61.7 without; ×1.1: 33.0/44.2/55.7/67.2 /
 * 32.5/43.3/54.2/63.0; ×1.2: 35.5/44.5/59.1/68.2 / 34.9/45.2/56.8/63.7; ×1.35: 37.0/47.6/60.3/69.4 /
 * 35.4/46.2/57.5/64.4. All questions: 69.4/77.5/84.9/89.1 / 67.2/75.6/84.0/87.7 without, 70.7/78.1/86.0/90.0 /
 * 69.7/77.5/85.1/88.6 at ×1.2 (the best on 6–10). Its cost: adversarial questions (which name the
 * wrong speaker on purpose) R@5/10 81.0/89.7 / 81.3/88.0 → 79.3/88.4 / 78.5/87.1 at ×1.1, 75.1/85.4 /
 * 78.0/84.0 at ×1.2 (R@10 then under BM25 alone's 85.7); an added share (not a proportional one)
 * cost them twice as much for the same multi-hop gain. ×1.1: two thirds of the multi-hop gain, and
 * every category stays ahead of BM25 alone.
 */
export const DEFAULT_SPEAKER_WEIGHT = 0.1;

/**
 * Speaker focus for a question asking for several things (asksForList: "What activities has Melanie
 * done?"), whose evidence is the named speaker's own turns spread over a conversation. LoCoMo, all
 * 1 982 questions, R@5/10/25/50 (MiniLM; 124 of the 282 multi-hop questions and 56 of the 446
 * adversarial ones are such): multi-hop 32.8/43.4/55.4/65.3 at ×1.1 (as every question), 33.5/44.7/56.1/65.7
 * at ×1.2, 34.0/45.6/56.6/66.1 at ×1.35; adversarial 78.7/87.1/94.5/96.7, 78.5/86.9/94.5/96.4,
 * 77.2/86.3/94.7/96.4. ×1.2: no category falls by more than 0.3 (adversarial R@50).
 */
export const DEFAULT_LIST_SPEAKER_WEIGHT = 0.2;

/**
 * Everyday-word expansion of the keyword search (recall-expansion.ts, everyday-words.ts): the words a
 * conversation uses for the question's ("fam", "kids" for "family") searched by keywords too, that
 * list blended into the question's at `weight` of its best. Off: on LoCoMo (MiniLM, captions) it lifts
 * the tuning half and not the held-out one. Multi-hop R@5/10/25/50, conversations 1–5 / 6–10:
 * 34.5/43.7/58.9/72.1 / 30.9/43.3/55.8/64.6 without; list questions at 0.35: 34.8/44.5/60.9/72.2 /
 * 30.6/43.3/55.8/64.9; the named speaker's hits only: 34.7/44.5/61.5/72.7 / 30.9/43.5/56.0/64.9, but
 * open-domain 6–10 R@5 31.1 → 30.6 and adversarial 6–10 78.5/88.3 → 78.0/87.8. Every question at 0.35
 * (no captions): all R@5 −0.5 / −0.9.
 */
export const DEFAULT_EXPANSION: ExpansionOptions = { weight: 0, questions: 'lists', namedSpeakerOnly: true };

/**
 * Decomposition into sub-questions (query-decomposer.ts, recall-decomposition.ts), off: on LoCoMo it
 * moves multi-hop by under half a point at any k and costs the other categories as much or more.
 * All 1 982 questions, asked once at k = 50, R@5/10/25/50. Right after writing (keywords only), off:
 * all 68.1/76.8/83.9/87.6, multi-hop 33.4/42.2/55.6/62.7; the structural rules by score at 0.8:
 * 67.7/76.3/83.5/87.3, multi-hop 33.4/42.0/55.7/62.8; by rank at 1: 67.7/76.4/83.8/87.7, multi-hop
 * 33.5/42.1/56.0/63.0, adversarial 74.9/86.3 → 73.3/85.0 at R@5/10. After catch-up, off: 71.2/79.7/87.2/91.6,
 * multi-hop 35.5/47.5/62.9/72.9; with the facet rule at 0.9: 70.8/79.3/87.1/91.5, multi-hop
 * 35.6/47.8/63.1/73.3, adversarial 75.6/86.7 → 74.4/85.5. See test/bench/locomo-notes.md.
 */
export const DEFAULT_DECOMPOSITION: DecompositionOptions = { weight: 0, maxSubQuestions: MAX_SUB_QUESTIONS };

export interface ExpansionOptions {
  /** The expansion list's best against the question's best (0 turns it off). */
  weight: number;
  /** Every question, or only those asking for several things (asksForList). */
  questions: 'all' | 'lists';
  /** Keep only the expansion's hits labelled with a speaker the question names (recall-speaker.ts ofNamedSpeaker), when it names some but not all. */
  namedSpeakerOnly?: boolean;
}

export interface MemoryRecallOptions {
  /** How the two lists are fused (default DEFAULT_FUSION). */
  fusion?: FusionOptions;
  /** Extra weight for recent items, 0 (default) to 1; halves every `recencyHalfLifeHours`. */
  recencyWeight?: number;
  recencyHalfLifeHours?: number;
  /**
   * Weight of each role's items in the fused score (default: user 0.95, others 1). Recall looks
   * for what was answered, found or remembered; the user's own turns (often the question asked
   * before) weigh a little less, enough to reorder near ties, never to hide a user's fact.
   */
  roleWeights?: Partial<Record<MemoryItem['role'], number>>;
  /** Weigh each hit by how much its words can say (informationWeight: small talk 0.5–1; default false, not yet measured to help). */
  weighSmallTalk?: boolean;
  /** Candidates each list fetches before fusion (default 200, at least k; more when the path filter drops many). */
  candidates?: number;
  /**
   * A second vector search from the first one's best hits (pseudo-relevance feedback): the
   * question's vector moved towards the mean of the top `hits` by `weight` (default DEFAULT_FEEDBACK; weight 0 turns it off).
   */
  feedback?: { hits: number; weight: number };
  /** Share of the better neighbouring turn's fused score a candidate gains (default DEFAULT_NEIGHBOUR_WEIGHT; 0 turns it off). */
  neighbourWeight?: number;
  /** A convex fusion's dense weight for a question asking for an inference (recall-question.ts; default DEFAULT_INFERENCE_DENSE_WEIGHT; at or below the fusion's own, no change). */
  inferenceDenseWeight?: number;
  /** For a question asking when, the share of the best score a turn that says when gains (recall-temporal.ts; default DEFAULT_WHEN_WEIGHT; 0 turns it off). */
  whenWeight?: number;
  /** For a question naming a speaker of labelled messages (`Name: …`), the share of its own score each of that speaker's messages gains (recall-speaker.ts; default DEFAULT_SPEAKER_WEIGHT; 0 turns it off). */
  speakerWeight?: number;
  /** Speaker focus for a question asking for several things (asksForList; default DEFAULT_LIST_SPEAKER_WEIGHT, never under speakerWeight's): its evidence is the named speaker's own turns spread over the conversation. */
  listSpeakerWeight?: number;
  /** Everyday-word expansion of the keyword search (recall-expansion.ts; default DEFAULT_EXPANSION). */
  expansion?: ExpansionOptions;
  /** Sub-questions (query-decomposer.ts) searched on their own and fused in (recall-decomposition.ts; default DEFAULT_DECOMPOSITION; weight 0 turns it off). */
  decomposition?: DecompositionOptions;
  /** Diversity in the top hits (recall-diversity.ts; default DEFAULT_DIVERSITY). */
  diversity?: DiversityOptions;
  /** Fused hits the re-ranker reads (default 20, at least k). */
  rerankTop?: number;
  /** Use keyword search beside vectors (default true); false gives plain vector search. */
  hybrid?: boolean;
  /** Drop items off the session's timeline path (default true); false is what a store without the timeline does. */
  branchAware?: boolean;
  now?: () => Date;
}

export interface MemoryRecallDeps {
  index: VectorIndex;
  model: EmbeddingModel;
  paths: SessionPaths;
  rewriter: QueryRewriter;
  policies: MemoryPolicyStore;
  /** Re-orders the best fused hits (optional; without one the fused order stands). */
  reranker?: Reranker;
  /** Splits a question into sub-questions searched on their own (default the deterministic one; an LLM one may be given). */
  decomposer?: QueryDecomposer;
}

/**
 * How many candidates each search fetches at first, and at most (it grows when the path filter drops
 * many). Deep enough that the cosines' min-max spans more than the best few, and a turn that is
 * middling in both lists can still be reached. LoCoMo (e5 composed with the previous turn, all 1 982
 * questions, R@5/10/25/50): 200, 70.8/79.7/87.0/91.3; 300, 71.2/79.7/87.2/91.6 (multi-hop
 * 35.4/47.8/62.0 → 35.5/47.5/62.9); 400, 71.2/79.7/87.4/91.7 — 300 leads the tuning half at R@5.
 */
export const DEFAULT_CANDIDATES = 300;
const MAX_FETCH = 4096;

/**
 * Branch-aware hybrid recall: vector and keyword candidates, each kept only if it lies on its
 * session's current path (or the asking session's `at` path), fused by reciprocal rank.
 * What was rolled back is not on the path, so it is not recalled; a redo puts it back.
 */
export class MemoryRecall {
  constructor(
    private readonly deps: MemoryRecallDeps,
    private readonly options: MemoryRecallOptions = {},
  ) {}

  async recall(request: RecallRequest): Promise<RecallResult> {
    const k = request.k ?? 5;
    const tenantWide = request.scope === 'tenant';
    // Throws not-found for another tenant's (or no) session before anything is searched.
    const own = await this.deps.paths.pathOf(request.tenantId, request.sessionId, request.at);
    const rewrite: RewriteResult =
      request.rewrite === false ? { query: request.query, rewriter: 'none' } : await this.deps.rewriter.rewrite(request.query, own.recentMessages);
    const result = (hits: RecallHit[]): RecallResult => ({ query: request.query, rewrittenQuery: rewrite.query, rewriter: rewrite.rewriter, hits });

    if ((await this.deps.policies.get(request.tenantId)) === 'none') return result([]);
    if (!tenantWide && (await effectivePolicy(this.deps.policies, request.tenantId, request.sessionId)) === 'none') return result([]);

    const scope: MemoryScope = tenantWide ? { tenantId: request.tenantId } : { tenantId: request.tenantId, sessionId: request.sessionId };
    const [vector] = await this.deps.model.embed([rewrite.query], { kind: 'query' });
    const paths = new Map<string, Promise<SessionPath | null>>([[request.sessionId, Promise.resolve(own)]]);
    const pathOf = (sessionId: string) => {
      let path = paths.get(sessionId);
      if (!path) {
        path = (async () => {
          if ((await effectivePolicy(this.deps.policies, request.tenantId, sessionId)) === 'none') return null;
          // A session deleted or unreadable since it was indexed contributes nothing.
          return this.deps.paths.pathOf(request.tenantId, sessionId).catch(() => null);
        })();
        paths.set(sessionId, path);
      }
      return path;
    };
    const onPath = async (hits: ScoredItem[]) => {
      if (this.options.branchAware === false) return hits;
      const kept: ScoredItem[] = [];
      for (const hit of hits) {
        const path = await pathOf(hit.item.sessionId);
        if (path && isOnPath(hit.item, path)) kept.push(hit);
      }
      return kept;
    };

    const depth = Math.max(this.options.candidates ?? DEFAULT_CANDIDATES, 1);
    const decomposition = this.options.decomposition ?? DEFAULT_DECOMPOSITION;
    const subQuestions =
      decomposition.weight > 0
        ? (await (this.deps.decomposer ?? new DeterministicDecomposer({ facets: decomposition.facets ?? false })).decompose(rewrite.query)).slice(
            0,
            decomposition.maxSubQuestions ?? MAX_SUB_QUESTIONS,
          )
        : [];
    const subVectors = subQuestions.length > 0 ? await this.deps.model.embed(subQuestions, { kind: 'query' }) : [];
    for (let fetch = Math.max(depth, k); ; fetch *= 4) {
      const asked = await this.rankOne(rewrite.query, vector!, scope, fetch, onPath);
      let fused = asked.fused;
      let exhausted = asked.exhausted;
      if (subQuestions.length > 0) {
        // Evidence spread over a conversation: each part of the question searched on its own, the best of each brought up.
        const parts = await Promise.all(subQuestions.map((sub, i) => this.rankOne(sub, subVectors[i]!, scope, fetch, onPath)));
        // A part's hits from the named person's own messages only ("Lena's activities", not her friend's).
        const lists = parts.map((part) => (decomposition.namedSpeakerOnly === false ? part.fused : ofNamedSpeaker(rewrite.query, part.fused)));
        fused = fuseSubQuestions(fused, lists, decomposition.weight, decomposition.by);
        exhausted &&= parts.every((part) => part.exhausted);
      }
      const diversity = this.options.diversity ?? DEFAULT_DIVERSITY;
      if (diversity.questions !== 'lists' || asksForList(rewrite.query)) fused = diversify(fused, diversity);
      if (fused.length >= k || exhausted || fetch >= MAX_FETCH) return result((await this.rerank(rewrite.query, fused, k)).slice(0, k).map(toHit));
    }
  }

  /**
   * One question's ranking: both searches (fetch candidates each), kept on the path, fused, the second
   * look from the best hits, then the question's own stages (when, speaker). `exhausted`: both lists
   * held fewer than asked, so a deeper fetch finds nothing more.
   */
  private async rankOne(
    query: string,
    vector: Float32Array,
    scope: MemoryScope,
    fetch: number,
    onPath: (hits: ScoredItem[]) => Promise<ScoredItem[]>,
  ): Promise<{ fused: ScoredItem[]; exhausted: boolean }> {
    const [byVector, byText] = await Promise.all([
      this.deps.index.searchVector(vector, scope, fetch),
      this.options.hybrid === false ? Promise.resolve([]) : this.deps.index.searchText(query, scope, fetch),
    ]);
    const vectorHits = await onPath(byVector);
    let textHits = await onPath(byText);
    const expansion = this.options.expansion ?? DEFAULT_EXPANSION;
    const isList = asksForList(query);
    if (expansion.weight > 0 && this.options.hybrid !== false && (expansion.questions === 'all' || isList)) {
      const extra = everydayExpansion(query);
      if (extra.length > 0) {
        let byExpansion = await onPath(await this.deps.index.searchText(extra.join(' '), scope, fetch));
        // A list's facet ("with her family") is the named speaker's own turns: another speaker's "kids" is noise.
        if (expansion.namedSpeakerOnly) byExpansion = ofNamedSpeaker(query, byExpansion);
        textHits = blendKeywordLists(textHits, byExpansion, expansion.weight);
      }
    }
    const fusion = fusionFor(query, this.options.fusion ?? DEFAULT_FUSION, this.options.inferenceDenseWeight ?? DEFAULT_INFERENCE_DENSE_WEIGHT);
    let fused = this.fuse(fusion, vector, vectorHits, textHits);
    const feedback = this.options.feedback ?? DEFAULT_FEEDBACK;
    if (feedback.weight > 0) {
      // A second look from what the first found (Rocchio): the question moved towards its best hits'
      // vectors reaches evidence phrased like the answer rather than like the question.
      const seeds = fused.slice(0, feedback.hits).flatMap((hit) => (hit.vector ? [hit.vector] : []));
      if (seeds.length > 0) {
        const moved = towards(vector, seeds, feedback.weight);
        const again = await onPath(await this.deps.index.searchVector(moved, scope, fetch));
        fused = this.fuse(fusion, moved, again, textHits);
      }
    }
    fused = favourWhen(query, fused, this.options.whenWeight ?? DEFAULT_WHEN_WEIGHT);
    const speakerWeight = this.options.speakerWeight ?? DEFAULT_SPEAKER_WEIGHT;
    const listSpeakerWeight = speakerWeight > 0 ? Math.max(speakerWeight, this.options.listSpeakerWeight ?? DEFAULT_LIST_SPEAKER_WEIGHT) : 0;
    fused = favourSpeaker(query, fused, isList ? listSpeakerWeight : speakerWeight);
    return { fused, exhausted: byVector.length < fetch && byText.length < fetch };
  }

  /** The re-ranker's order of the top candidates (the fused order breaks its ties), the rest after them. */
  private async rerank(query: string, fused: ScoredItem[], k: number): Promise<ScoredItem[]> {
    if (!this.deps.reranker || fused.length < 2) return fused;
    const top = fused.slice(0, Math.max(k, this.options.rerankTop ?? 20));
    const scores = await this.deps.reranker.rerank(
      query,
      top.map((hit) => hit.item.text),
    );
    if (!scores) return fused;
    const reordered = top.map((hit, i) => ({ hit, i, score: scores[i]! })).sort((a, b) => b.score - a.score || a.i - b.i);
    return [...reordered.map(({ hit, score }) => ({ item: hit.item, score })), ...fused.slice(top.length)];
  }

  private fuse(fusion: FusionOptions, query: Float32Array, byVector: ScoredItem[], byText: ScoredItem[]): ScoredItem[] {
    const fused = new Map<string, ScoredItem>();
    const entryOf = (hit: ScoredItem) => {
      let entry = fused.get(hit.item.id);
      if (!entry) fused.set(hit.item.id, (entry = { item: hit.item, score: 0, ...(hit.vector ? { vector: hit.vector } : {}) }));
      return entry;
    };
    if (fusion.method === 'rrf') {
      for (const list of [byVector, byText]) list.forEach((hit, rank) => (entryOf(hit).score += 1 / (fusion.k + rank + 1)));
    } else {
      // Both signals for every candidate, and none penalised for a vector stage 2 has not attached yet (convex-fusion.ts).
      // An index with two stages (`admit`) returns a keyword hit's vector when it has one: one without it awaits stage 2.
      const vectorless = this.deps.index.admit ? 'pending' : 'unread';
      for (const scored of convexFusion(query, byVector, byText, fusion.denseWeight, vectorless)) fused.set(scored.item.id, scored);
    }
    // What a fresh item gains at most: half the best fused score possible.
    const bestPossible = fusion.method === 'rrf' ? 2 / (fusion.k + 1) : 1;
    const roleWeights = { user: 0.95, ...this.options.roleWeights };
    const smallTalk = this.options.weighSmallTalk ?? false;
    for (const entry of fused.values()) entry.score *= (roleWeights[entry.item.role] ?? 1) * (smallTalk ? informationWeight(entry.item.text) : 1);
    const spread = this.options.neighbourWeight ?? DEFAULT_NEIGHBOUR_WEIGHT;
    if (spread > 0) {
      // A turn beside a strong hit (the question before an answer, the answer after) shares a little of its score.
      const own = new Map([...fused.values()].map((e) => [`${e.item.sessionId}\u0000${e.item.version}`, e.score]));
      for (const entry of fused.values()) {
        const at = (v: number) => own.get(`${entry.item.sessionId}\u0000${v}`) ?? 0;
        entry.score += spread * Math.max(at(entry.item.version - 1), at(entry.item.version + 1));
      }
    }
    const weight = this.options.recencyWeight ?? 0;
    if (weight > 0) {
      const now = (this.options.now?.() ?? new Date()).getTime();
      const halfLife = (this.options.recencyHalfLifeHours ?? 24 * 7) * 3_600_000;
      for (const entry of fused.values()) {
        const age = Math.max(0, now - Date.parse(entry.item.occurredAt));
        entry.score += (weight * 0.5 ** (age / halfLife) * bestPossible) / 2;
      }
    }
    return [...fused.values()].sort((a, b) => b.score - a.score || b.item.globalPosition - a.item.globalPosition);
  }
}

/**
 * True when the item is part of what the session knows on this path: its event lies on the
 * ancestry, and, for a memory write, the key still holds what it wrote (not erased or
 * overwritten later on the path).
 */
export function isOnPath(item: MemoryItem, path: SessionPath): boolean {
  if (!path.versions.has(item.version)) return false;
  if (item.memoryKey === undefined) return true;
  if (!(item.memoryKey in path.memory)) return false;
  return renderMemoryWrite(item.memoryKey, path.memory[item.memoryKey]!).includes(item.text);
}

/** The query moved towards the mean of the seeds by `weight` (0: unchanged), back to unit length. */
function towards(query: Float32Array, seeds: Float32Array[], weight: number): Float32Array {
  const moved = Float32Array.from(query);
  for (const seed of seeds) for (let i = 0; i < moved.length; i++) moved[i]! += (weight * seed[i]!) / seeds.length;
  const norm = Math.sqrt(dot(moved, moved)) || 1;
  return moved.map((x) => x / norm);
}

function toHit({ item, score }: ScoredItem): RecallHit {
  return { text: item.text, score, sessionId: item.sessionId, version: item.version, eventId: item.eventId, role: item.role, occurredAt: item.occurredAt };
}
