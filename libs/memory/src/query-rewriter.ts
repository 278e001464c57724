/** A message of the recent conversation, oldest first. */
export interface RecentMessage {
  role: 'user' | 'agent';
  content: string;
}

export interface RewriteResult {
  /** The standalone question used for retrieval (the raw question when nothing needed resolving). */
  query: string;
  /** Which rewriter produced it: `deterministic`, `llm`, `none` (nothing to resolve) or `fallback` (the LLM failed; the raw question was used). */
  rewriter: 'deterministic' | 'llm' | 'none' | 'fallback';
  /** Why the fallback happened, for the logs and the answer. */
  note?: string;
}

/** Rewrites a vague follow-up ("what about its price?") into a standalone question. */
export interface QueryRewriter {
  rewrite(question: string, recent: readonly RecentMessage[]): Promise<RewriteResult>;
}
