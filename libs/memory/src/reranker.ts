/**
 * The re-ranker port: a second opinion on the best fused hits, reading the question and each
 * passage together (a cross-encoder, or a hosted re-ranking service). Recall asks it about its
 * top candidates only and keeps the fused order when it cannot answer.
 */
export interface Reranker {
  /** One relevance score per passage, in the passages' order (higher is better); null when it failed (recall keeps its own order). */
  rerank(query: string, passages: readonly string[]): Promise<number[] | null>;
}
