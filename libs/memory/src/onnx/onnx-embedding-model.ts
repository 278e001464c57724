import { modelFileSettings } from '@rewind/config';
import { LRUCache } from 'lru-cache';
import { normalize, type EmbeddingModel, type EmbeddingModelInfo, type EmbedOptions } from '../embedding-model';
import { asWindows } from '../turn-context';
import { DEFAULT_LOCAL_MODEL, localModelSpec, type LocalModelSpec } from './model-catalogue';
import { ensureModelFiles, ModelUnavailableError, type ModelFilesOptions } from './model-files';
import { pooledVectors } from './pooling';

export interface OnnxEmbeddingModelOptions extends ModelFilesOptions {
  /** A key of LOCAL_MODELS (default REWIND_EMBEDDING_MODEL, else DEFAULT_LOCAL_MODEL). */
  model?: string;
  /**
   * Texts per inference call; unset (the default), each call takes texts of about one length up to
   * batchTokens padded tokens (see embedTexts).
   */
  batchSize?: number;
  /** Padded tokens per inference call when batchSize is unset (default 512: ~32 short chat turns, ~10 of LoCoMo's). */
  batchTokens?: number;
  /** Overrides the catalogue's contextWeight (a sweep of it: the LoCoMo bench's --context-weight); null embeds windows. */
  contextWeight?: number | null;
  /** onnxruntime's intra-op threads (default: its own choice, one per core); 1 keeps a background indexer to one core. */
  intraOpThreads?: number;
}

interface Tensor {
  data: Float32Array | BigInt64Array;
  dims: number[];
}

/** The parts of transformers.js's feature-extraction pipeline used: its tokenizer and its model, pooled here (see pooledVectors). */
interface FeatureExtractor {
  tokenizer: {
    (texts: string[], options: { padding: boolean; truncation: boolean }): { attention_mask: Tensor };
    encode(text: string): number[];
  };
  model(inputs: object): Promise<{ last_hidden_state: Tensor }>;
  dispose(): Promise<void>;
}

/** The models' input limit (BERT's 512 positions): longer texts are truncated. */
const MAX_TOKENS = 512;

/**
 * The default embeddings: a quantized ONNX model from Maven Central, run in-process by
 * @huggingface/transformers over onnxruntime-node, remote model hubs off. The model is
 * downloaded on first use (see ensureModelFiles) and cached.
 */
export class OnnxEmbeddingModel implements EmbeddingModel {
  readonly spec: LocalModelSpec;
  /** Vectors of the turns embedded last, by text: the next turns' previous turns. */
  private readonly recentTurns = new LRUCache<string, Float32Array>({ max: 1024 });
  private loading: Promise<{ extractor: FeatureExtractor; info: EmbeddingModelInfo }> | undefined;

  constructor(private readonly options: OnnxEmbeddingModelOptions = {}) {
    this.spec = localModelSpec(options.model ?? modelFileSettings().embeddingModel ?? DEFAULT_LOCAL_MODEL);
  }

  private load() {
    this.loading ??= (async () => {
      const { cacheDir } = await ensureModelFiles(this.spec, this.options);
      // ESM-only package: a native dynamic import, kept as such by the CommonJS build.
      const transformers = await import('@huggingface/transformers');
      transformers.env.allowRemoteModels = false;
      transformers.env.allowLocalModels = true;
      transformers.env.localModelPath = `${cacheDir}/`;
      let pipe: unknown;
      try {
        pipe = await transformers.pipeline('feature-extraction', this.spec.id, {
          dtype: 'fp32',
          device: 'cpu',
          session_options: {
            ...(this.options.intraOpThreads ? { intraOpNumThreads: this.options.intraOpThreads, interOpNumThreads: 1 } : {}),
            // onnxruntime's pool threads spin while waiting for work: on a busy machine (the writes, other
            // services) that burns the CPU they need and halves the model's own throughput (2 cores, load 9:
            // ~220 items/s spinning, ~380 not, ~465 with one thread). Waiting threads sleep instead.
            extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
          },
        });
      } catch (error) {
        throw new ModelUnavailableError(
          `The embedding model ${this.spec.id} in ${cacheDir}/${this.spec.id} could not be loaded: ${(error as Error).message}. ` +
            'Delete that folder to download it again.',
          { cause: error },
        );
      }
      const extractor = pipe as FeatureExtractor;
      const [probe] = await this.run(extractor, ['dimension probe']);
      return { extractor, info: { id: this.spec.id, dimensions: probe!.length } };
    })();
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }

  async info(): Promise<EmbeddingModelInfo> {
    return (await this.load()).info;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const { contexts, kind } = options;
    const weight = this.options.contextWeight === undefined ? this.spec.contextWeight : (this.options.contextWeight ?? undefined);
    if (weight === undefined || kind === 'query' || !contexts?.some((context) => context !== undefined))
      return this.embedTexts(asWindows(texts, contexts), kind);
    // Each turn alone, then its previous turn's own vector added: the previous turn is mostly a text
    // of this batch, or of one just before (recentTurns), so a turn costs about one short embedding.
    const vectorOf = new Map<string, Float32Array>();
    const wanted = new Set<string>();
    for (const text of [...texts, ...contexts]) {
      if (text === undefined || vectorOf.has(text)) continue;
      const recent = this.recentTurns.get(text);
      if (recent) vectorOf.set(text, recent);
      else wanted.add(text);
    }
    const fresh = [...wanted];
    (await this.embedTexts(fresh, kind)).forEach((vector, i) => {
      vectorOf.set(fresh[i]!, vector);
      this.recentTurns.set(fresh[i]!, vector);
    });
    return texts.map((text, i) => {
      const own = vectorOf.get(text)!;
      const context = contexts[i];
      if (context === undefined) return own;
      const previous = vectorOf.get(context)!;
      return normalize(own.map((x, d) => x + weight * previous[d]!));
    });
  }

  private async embedTexts(texts: readonly string[], kind: EmbedOptions['kind']): Promise<Float32Array[]> {
    const { extractor } = await this.load();
    const prefix = (kind === 'query' ? this.spec.queryPrefix : this.spec.passagePrefix) ?? '';
    const prefixed = texts.map((text) => prefix + text);
    const vectors = new Array<Float32Array>(texts.length);
    for (const batch of this.batches(extractor, prefixed)) {
      const output = await this.run(
        extractor,
        batch.map((i) => prefixed[i]!),
      );
      batch.forEach((textIndex, row) => (vectors[textIndex] = output[row]!));
    }
    return vectors;
  }

  /**
   * The texts' indices in inference batches. Texts of about one length share a batch (a batch is padded
   * to its longest text), and a batch holds up to batchTokens padded tokens rather than a fixed count:
   * the model's CPU per token grows with a batch's size (its activations leave the cache), so LoCoMo's
   * ~54-token turns embed ~20 % more items per CPU second in batches of ~10 than of 32, while short
   * turns (~15 tokens) still go ~32 at a time (BENCHMARKS.md, memory). Counting the tokens costs a
   * second tokenisation, ~2 % of the model's time.
   */
  private batches(extractor: FeatureExtractor, texts: readonly string[]): number[][] {
    const { batchSize } = this.options;
    if (batchSize !== undefined) {
      const byLength = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      return Array.from({ length: Math.ceil(byLength.length / batchSize) }, (_, b) => byLength.slice(b * batchSize, (b + 1) * batchSize));
    }
    const budget = this.options.batchTokens ?? 512;
    const tokens = texts.map((text) => Math.min(MAX_TOKENS, extractor.tokenizer.encode(text).length));
    const byTokens = texts.map((_, i) => i).sort((a, b) => tokens[a]! - tokens[b]!);
    const batches: number[][] = [];
    let batch: number[] = [];
    for (const i of byTokens) {
      // Ascending order: the text joining a batch is its longest, so the padded size is its length times the count.
      if (batch.length > 0 && tokens[i]! * (batch.length + 1) > budget) {
        batches.push(batch);
        batch = [];
      }
      batch.push(i);
    }
    if (batch.length > 0) batches.push(batch);
    return batches;
  }

  /** One normalised vector per text, as the pipeline with this model's pooling would give. */
  private async run(extractor: FeatureExtractor, texts: string[]): Promise<Float32Array[]> {
    const inputs = extractor.tokenizer(texts, { padding: true, truncation: true });
    const { last_hidden_state: hidden } = await extractor.model(inputs);
    return pooledVectors(hidden.data as Float32Array, hidden.dims, inputs.attention_mask.data, this.spec.pooling);
  }

  async close(): Promise<void> {
    const loaded = await this.loading?.catch(() => undefined);
    this.loading = undefined;
    await loaded?.extractor.dispose();
  }
}
