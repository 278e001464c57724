import type { QueryRewriter, RecentMessage, RewriteResult } from '../query-rewriter';

export interface OpenAiRewriterOptions {
  /** Base URL of an OpenAI-compatible API (REWIND_LLM_URL), e.g. http://127.0.0.1:11434/v1. */
  url: string;
  /** REWIND_LLM_MODEL. */
  model: string;
  /** REWIND_LLM_API_KEY. */
  apiKey?: string;
  /** After this long the raw question is used (default 2 000 ms): recall never waits on a slow model. */
  timeoutMs?: number;
  logger?: { warn(message: string): void };
}

const INSTRUCTION =
  "Rewrite the user's last question into one standalone search query for a memory store. " +
  "Resolve pronouns and ellipsis from the conversation, keep names, numbers and the question's language. " +
  'Answer with the query only, no quotes, no explanation.';

/** A fast LLM behind an OpenAI-compatible chat-completions endpoint rewrites the question (seed 003); any failure falls back to the raw question. */
export class OpenAiRewriter implements QueryRewriter {
  constructor(private readonly options: OpenAiRewriterOptions) {}

  async rewrite(question: string, recent: readonly RecentMessage[]): Promise<RewriteResult> {
    const url = `${this.options.url.replace(/\/$/, '')}/chat/completions`;
    const conversation = recent.map((m) => `${m.role}: ${m.content}`).join('\n');
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body: JSON.stringify({
          model: this.options.model,
          temperature: 0,
          max_tokens: 100,
          messages: [
            { role: 'system', content: INSTRUCTION },
            { role: 'user', content: `Conversation:\n${conversation}\n\nLast question: ${question}` },
          ],
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 2_000),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const json = (await response.json()) as { choices?: { message?: { content?: string } }[] };
      const query = json.choices?.[0]?.message?.content?.trim().replace(/^["'“]|["'”]$/g, '');
      if (!query) throw new Error('the answer held no text');
      return { query, rewriter: 'llm' };
    } catch (error) {
      const note = `The query rewriter at ${url} failed (${(error as Error).message}); the question was used as asked. Check REWIND_LLM_URL and REWIND_LLM_MODEL.`;
      this.options.logger?.warn(note);
      return { query: question, rewriter: 'fallback', note };
    }
  }
}
