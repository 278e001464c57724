import type { Logger } from '@rewind/config';
import { postgresAdvisoryLock, type ExclusiveLock } from '@rewind/event-store/subscriptions';
import type { Pool } from 'pg';
import type { EmbeddingModel } from '../embedding-model';
import type { MemoryIndexerOptions } from '../memory-indexer';
import { LanguageRoutedEmbeddingModel, LanguageSpacesIndex } from '../language';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, localModelSpec, OnnxEmbeddingModel } from '../onnx';
import type { FusionOptions } from '../recall-question';
import { OpenAiEmbeddingModel } from '../openai';
import { PostgresVectorIndex } from '../postgres/postgres-vector-index';
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
  // A memory thread's own pool: its thread handles one batch or one search at a time.
  if (config.index === 'postgres') return postgresIndexFor(config, threadPoolSize(config)).index;
  return sqliteIndexFor(config, config.sqliteFile).index;
}

/** Connections of a memory thread's pool for the PostgreSQL index: half the process's (REWIND_PG_MEMORY_POOL_SIZE), at least 1. */
export function threadPoolSize(config: Pick<MemoryConfig, 'postgresPoolSize'>): number {
  return Math.max(1, Math.floor((config.postgresPoolSize ?? 4) / 2));
}

/**
 * The shared index in PostgreSQL, as the configuration uses it; `tables` holds the pool (its own,
 * `poolSize` connections: every thread that opens the index has one; the embedding thread's reads
 * and writes one batch at a time, so 2). Siblings share it.
 */
export function postgresIndexFor(
  config: MemoryConfig,
  poolSize = 2,
): { index: VectorIndex & Pick<PostgresVectorIndex, 'listItems'>; tables: PostgresVectorIndex } {
  const tables = new PostgresVectorIndex({ connectionString: config.postgresUrl!, schema: config.postgresSchema, poolSize });
  return { index: routesByLanguage(config) ? new LanguageSpacesIndex(tables, () => tables.sibling()) : tables, tables };
}

/** The embedded index in this file, as the configuration uses it; `file` is its connection's owner (its `db`). */
export function sqliteIndexFor(config: MemoryConfig, filename: string): { index: VectorIndex & Pick<SqliteVectorIndex, 'listItems'>; file: SqliteVectorIndex } {
  const file = new SqliteVectorIndex({ filename });
  return { index: routesByLanguage(config) ? new LanguageSpacesIndex(file, () => file.sibling()) : file, file };
}

/** The advisory lock whose holder indexes a shared PostgreSQL index (one per schema). */
export const INDEXER_LOCK = 'memory-indexer';

/**
 * The PostgreSQL index's indexer name: its checkpoints (per model) are kept under it in the shared
 * store. A name of its own: a position an older version kept there (when each process's index was
 * a file) must not make this new index skip the log's history.
 */
export const POSTGRES_INDEXER_NAME = 'postgres-memory-indexer';

/**
 * The PostgreSQL index of a process, and how its indexer runs: under the advisory lock INDEXER_LOCK,
 * so that one process of the deployment indexes (follows the log, embeds) while every process recalls
 * from the same tables. One connection of the pool is the lock's while this process holds it.
 */
export function sharedPostgresIndex(
  config: MemoryConfig,
  poolSize = config.postgresPoolSize ?? 4,
): {
  index: VectorIndex & Pick<PostgresVectorIndex, 'listItems'>;
  tables: PostgresVectorIndex;
  indexing: Required<Pick<MemoryIndexerOptions, 'exclusivity' | 'name'>>;
} {
  const { index, tables } = postgresIndexFor(config, poolSize);
  const lock = lazyAdvisoryLock(() => tables.pool(), config.postgresSchema, INDEXER_LOCK);
  return { index, tables, indexing: { exclusivity: { kind: 'lock', lock }, name: POSTGRES_INDEXER_NAME } };
}

/** A PostgreSQL advisory lock on a pool made on first use (the index's own: `pg` loads only when the index is used). */
function lazyAdvisoryLock(pool: () => Promise<Pool>, scope: string, name: string): ExclusiveLock {
  // One lock for every caller (the subscription and stage 2 ask at once): a second would take a connection of its own and never hold it.
  let lock: Promise<ExclusiveLock> | undefined;
  // A question in flight answers every caller: two at once would each try on a connection, and the loser would say "held elsewhere".
  let asking: Promise<boolean> | undefined;
  return {
    tryAcquire() {
      lock ??= pool().then((p) => postgresAdvisoryLock(p, scope, name));
      asking ??= lock.then((l) => l.tryAcquire()).finally(() => (asking = undefined));
      return asking;
    },
    async release() {
      await (await lock)?.release();
    },
  };
}
