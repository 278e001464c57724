import type { EmbeddingModel, EmbeddingModelInfo, EmbedOptions } from '../embedding-model';
import { normalize } from '../embedding-model';
import { asWindows } from '../turn-context';

export interface OpenAiEmbeddingOptions {
  /** Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 (REWIND_EMBEDDING_URL). */
  url: string;
  /** Model name sent in each request (REWIND_EMBEDDING_MODEL). */
  model: string;
  apiKey?: string;
  /** Texts per request (default 128). */
  batchSize?: number;
  timeoutMs?: number;
}

/**
 * Embeddings from any OpenAI-compatible `/embeddings` endpoint. The dimension is whatever
 * the service returns for a probe, so the index follows the model instead of the code.
 */
export class OpenAiEmbeddingModel implements EmbeddingModel {
  private infoPromise: Promise<EmbeddingModelInfo> | undefined;

  constructor(private readonly options: OpenAiEmbeddingOptions) {}

  info(): Promise<EmbeddingModelInfo> {
    this.infoPromise ??= this.request(['dimension probe']).then(([v]) => ({ id: `openai-${this.options.model}`, dimensions: v!.length }));
    this.infoPromise.catch(() => (this.infoPromise = undefined));
    return this.infoPromise;
  }

  async embed(given: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    // A hosted model's answer to a turn alone plus its previous turn's vector is unmeasured: it gets the window.
    const texts = asWindows(given, options.contexts);
    const batchSize = this.options.batchSize ?? 128;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) vectors.push(...(await this.request(texts.slice(start, start + batchSize))));
    return vectors;
  }

  private async request(input: readonly string[]): Promise<Float32Array[]> {
    const url = `${this.options.url.replace(/\/$/, '')}/embeddings`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.options.model, input }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new Error(`The embeddings service at ${url} could not be reached (${(error as Error).message}); check REWIND_EMBEDDING_URL.`, { cause: error });
    }
    if (!response.ok) {
      const body = (await response.text()).slice(0, 300);
      throw new Error(`The embeddings service at ${url} answered HTTP ${response.status}: ${body}. Check REWIND_EMBEDDING_MODEL and REWIND_EMBEDDING_API_KEY.`);
    }
    const json = (await response.json()) as { data?: { index: number; embedding: number[] }[] };
    if (!Array.isArray(json.data) || json.data.length !== input.length) {
      throw new Error(`The embeddings service at ${url} returned ${json.data?.length ?? 'no'} vectors for ${input.length} texts: it is not OpenAI-compatible.`);
    }
    return [...json.data].sort((a, b) => a.index - b.index).map((d) => normalize(Float32Array.from(d.embedding)));
  }

  async close(): Promise<void> {}
}
