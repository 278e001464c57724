import type { EmbeddingModel, EmbeddingModelInfo } from '../embedding-model';
import { DEFAULT_LOCAL_MODEL, localModelSpec, type LocalModelSpec } from './model-catalogue';
import { ensureModelFiles, ModelUnavailableError, type ModelFilesOptions } from './model-files';

export interface OnnxEmbeddingModelOptions extends ModelFilesOptions {
  /** A key of LOCAL_MODELS (default REWIND_EMBEDDING_MODEL, else all-minilm-l6-v2-q). */
  model?: string;
  /** Texts per inference call (default 32). */
  batchSize?: number;
}

type FeatureExtractor = (texts: string[], options: { pooling: 'mean' | 'cls'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

/**
 * The default embeddings: a quantized ONNX model from Maven Central, run in-process by
 * @huggingface/transformers over onnxruntime-node, remote model hubs off. The model is
 * downloaded on first use (see ensureModelFiles) and cached.
 */
export class OnnxEmbeddingModel implements EmbeddingModel {
  readonly spec: LocalModelSpec;
  private loading: Promise<{ extractor: FeatureExtractor; dispose: () => Promise<void>; info: EmbeddingModelInfo }> | undefined;

  constructor(private readonly options: OnnxEmbeddingModelOptions = {}) {
    this.spec = localModelSpec(options.model ?? process.env.REWIND_EMBEDDING_MODEL ?? DEFAULT_LOCAL_MODEL);
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
        pipe = await transformers.pipeline('feature-extraction', this.spec.id, { dtype: 'fp32', device: 'cpu' });
      } catch (error) {
        throw new ModelUnavailableError(
          `The embedding model ${this.spec.id} in ${cacheDir}/${this.spec.id} could not be loaded: ${(error as Error).message}. ` +
            'Delete that folder to download it again.',
          { cause: error },
        );
      }
      const extractor = pipe as FeatureExtractor;
      const probe = await extractor(['dimension probe'], { pooling: this.spec.pooling, normalize: true });
      const dimensions = probe.dims[probe.dims.length - 1]!;
      return {
        extractor,
        dispose: () => (pipe as { dispose(): Promise<void> }).dispose(),
        info: { id: this.spec.id, dimensions },
      };
    })();
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }

  async info(): Promise<EmbeddingModelInfo> {
    return (await this.load()).info;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const { extractor, info } = await this.load();
    const batchSize = this.options.batchSize ?? 32;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = texts.slice(start, start + batchSize);
      const output = await extractor(batch, { pooling: this.spec.pooling, normalize: true });
      for (let i = 0; i < batch.length; i++) vectors.push(output.data.slice(i * info.dimensions, (i + 1) * info.dimensions));
    }
    return vectors;
  }

  async close(): Promise<void> {
    const loaded = await this.loading?.catch(() => undefined);
    this.loading = undefined;
    await loaded?.dispose();
  }
}
