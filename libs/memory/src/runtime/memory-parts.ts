import type { Logger } from '@rewind/config';
import type { EmbeddingModel } from '../embedding-model';
import { LanguageRoutedEmbeddingModel, LanguageSpacesIndex } from '../language';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, localModelSpec, OnnxEmbeddingModel } from '../onnx';
import type { FusionOptions } from '../recall-question';
import { OpenAiEmbeddingModel } from '../openai';
import { QdrantVectorIndex } from '../qdrant';
import { SqliteVectorIndex } from '../sqlite-vec';
import type { VectorIndex } from '../vector-index';
import type { MemoryConfig } from './memory-config';

/** The model Chinese texts are routed to when no model is configured. */
export const CHINESE_LOCAL_MODEL = 'bge-small-zh-v15-q';

/**
 * Whether texts are embedded by their language's model: with the default local models only. A
 * model named by REWIND_EMBEDDING_MODEL (local or hosted) embeds everything, as it always did.
 */
export function routesByLanguage(config: Pick<MemoryConfig, 'embeddingModel' | 'embeddingUrl'>): boolean {
  return !config.embeddingUrl && !config.embeddingModel;
}

/**
 * Recall's fusion for the configured model: a local model catalogued with its own dense weight (e5,
 * also as the default English model of language routing) gets it; others and hosted ones keep
 * DEFAULT_FUSION (nothing returned).
 */
export function modelFusion(config: Partial<Pick<MemoryConfig, 'embeddingModel' | 'embeddingUrl'>>): { fusion?: FusionOptions } {
  if (config.embeddingUrl) return {};
  const denseWeight = LOCAL_MODELS[config.embeddingModel ?? DEFAULT_LOCAL_MODEL]?.denseWeight;
  return denseWeight === undefined ? {} : { fusion: { method: 'convex', denseWeight } };
}

/** The embedding model the configuration names (one intra-op thread when it runs beside other work in a worker thread). */
export function embeddingModelFor(config: MemoryConfig, options: { logger?: Logger; intraOpThreads?: number } = {}): EmbeddingModel {
  if (config.embeddingUrl)
    return new OpenAiEmbeddingModel({
      url: config.embeddingUrl,
      model: config.embeddingModel!,
      ...(config.embeddingApiKey ? { apiKey: config.embeddingApiKey } : {}),
    });
  const local = (model: string) =>
    new OnnxEmbeddingModel({
      model,
      ...(config.modelDir ? { cacheDir: config.modelDir } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.intraOpThreads ? { intraOpThreads: options.intraOpThreads } : {}),
    });
  if (!routesByLanguage(config)) return local(config.embeddingModel!);
  // English (and every language but Chinese) keeps the default; Chinese gets the catalogued Chinese model, loaded on its first text.
  return new LanguageRoutedEmbeddingModel(
    (
      [
        ['en', DEFAULT_LOCAL_MODEL],
        ['zh', CHINESE_LOCAL_MODEL],
      ] as const
    ).map(([language, id]) => ({ language, id, dimensions: localModelSpec(id).dimensions, model: local(id) })),
  );
}

/** The vector index the configuration names (with language routing, one per model over the same storage). */
export function vectorIndexFor(config: MemoryConfig): VectorIndex {
  if (config.index === 'qdrant') {
    const qdrant = () => new QdrantVectorIndex({ url: config.qdrantUrl!, ...(config.qdrantApiKey ? { apiKey: config.qdrantApiKey } : {}) });
    return routesByLanguage(config) ? new LanguageSpacesIndex(qdrant(), qdrant) : qdrant();
  }
  return sqliteIndexFor(config, config.sqliteFile).index;
}

/** The embedded index in this file, as the configuration uses it; `file` is its connection's owner (its `db`). */
export function sqliteIndexFor(config: MemoryConfig, filename: string): { index: VectorIndex & Pick<SqliteVectorIndex, 'listItems'>; file: SqliteVectorIndex } {
  const file = new SqliteVectorIndex({ filename });
  return { index: routesByLanguage(config) ? new LanguageSpacesIndex(file, () => file.sibling()) : file, file };
}
