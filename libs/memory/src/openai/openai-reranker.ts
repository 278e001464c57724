import type { Reranker } from '../reranker';

export interface OpenAiRerankerOptions {
  /** Base URL of an OpenAI-compatible server with a `/rerank` route (vLLM, Text Embeddings Inference, LocalAI, Jina), e.g. http://127.0.0.1:8000/v1. */
  url: string;
  model: string;
  apiKey?: string;
  /** After this long the fused order is kept (default 2 000 ms): recall never waits on a slow service. */
  timeoutMs?: number;
  logger?: { warn(message: string): void };
}

/**
 * Re-ranking by a hosted cross-encoder behind the `/rerank` route that OpenAI-compatible
 * servers share (request `{model, query, documents}`, answer `{results: [{index, relevance_score}]}`).
 * Any failure keeps the fused order.
 */
export class OpenAiReranker implements Reranker {
  constructor(private readonly options: OpenAiRerankerOptions) {}

  async rerank(query: string, passages: readonly string[]): Promise<number[] | null> {
    if (passages.length === 0) return [];
    const url = `${this.options.url.replace(/\/$/, '')}/rerank`;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.options.model, query, documents: passages, top_n: passages.length }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 2_000),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const json = (await response.json()) as { results?: { index?: unknown; relevance_score?: unknown }[] };
      const scores = new Array<number>(passages.length).fill(Number.NEGATIVE_INFINITY);
      let seen = 0;
      for (const result of json.results ?? []) {
        const { index, relevance_score: score } = result;
        if (typeof index !== 'number' || typeof score !== 'number' || !(index in scores))
          throw new Error('the answer is not a list of {index, relevance_score}');
        scores[index] = score;
        seen++;
      }
      if (seen === 0) throw new Error('the answer held no scores');
      return scores;
    } catch (error) {
      this.options.logger?.warn(
        `The re-ranker at ${url} failed (${(error as Error).message}); recall kept its own order. Check REWIND_RERANK_URL and REWIND_RERANK_MODEL.`,
      );
      return null;
    }
  }
}
