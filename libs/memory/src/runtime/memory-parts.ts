import type { Logger } from '@rewind/config';
import type { EmbeddingModel } from '../embedding-model';
import { OnnxEmbeddingModel } from '../onnx';
import { OpenAiEmbeddingModel } from '../openai';
import { QdrantVectorIndex } from '../qdrant';
import { SqliteVectorIndex } from '../sqlite-vec';
import type { VectorIndex } from '../vector-index';
import type { MemoryConfig } from './memory-config';

/** The embedding model the configuration names (one intra-op thread when it runs beside other work in a worker thread). */
export function embeddingModelFor(config: MemoryConfig, options: { logger?: Logger; intraOpThreads?: number } = {}): EmbeddingModel {
  return config.embeddingUrl
    ? new OpenAiEmbeddingModel({
        url: config.embeddingUrl,
        model: config.embeddingModel!,
        ...(config.embeddingApiKey ? { apiKey: config.embeddingApiKey } : {}),
      })
    : new OnnxEmbeddingModel({
        ...(config.embeddingModel ? { model: config.embeddingModel } : {}),
        ...(config.modelDir ? { cacheDir: config.modelDir } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.intraOpThreads ? { intraOpThreads: options.intraOpThreads } : {}),
      });
}

/** The vector index the configuration names. */
export function vectorIndexFor(config: MemoryConfig): VectorIndex {
  return config.index === 'qdrant'
    ? new QdrantVectorIndex({ url: config.qdrantUrl!, ...(config.qdrantApiKey ? { apiKey: config.qdrantApiKey } : {}) })
    : new SqliteVectorIndex({ filename: config.sqliteFile });
}
