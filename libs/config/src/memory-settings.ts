import { join } from 'node:path';
import { EnvReader } from './env-reader';
import { ConfigError } from './rewind-config';
import type { StoreKind } from './store-choice';

/** Memory's settings, from the environment (see docs/guide/memory.md and docs/operations/configuration.md). */
export interface MemoryConfig {
  /** REWIND_MEMORY=off turns indexing and recall off (default on). */
  enabled: boolean;
  /**
   * REWIND_MEMORY_INDEX: `sqlite` (embedded, the default), `postgres` (the default with REWIND_STORE=postgres:
   * tables of DATABASE_URL, one index shared by every process of the deployment) or `qdrant` (the default
   * when QDRANT_URL is set).
   */
  index: 'sqlite' | 'qdrant' | 'postgres';
  /** The embedded index file: `<data dir>/rewind.memory.db`, beside the event store's. */
  sqliteFile: string;
  qdrantUrl: string | undefined;
  qdrantApiKey: string | undefined;
  /** The PostgreSQL index's database (DATABASE_URL) and schema (REWIND_PG_SCHEMA, default rewind: the event store's). */
  postgresUrl: string | undefined;
  postgresSchema: string;
  /**
   * REWIND_PG_MEMORY_POOL_SIZE (default 4, at least 2): connections of the process's pool for the
   * PostgreSQL index (one of them the indexer's lock while this process indexes); each memory
   * thread that opens the index (keywords, writer) has a pool of half as many, at least 1.
   */
  postgresPoolSize: number;
  /**
   * REWIND_EMBEDDING_MODEL: a local model id, or the hosted model's name when REWIND_EMBEDDING_URL is set;
   * that one model then embeds every text. Unset (the default): each text is embedded by its language's
   * local model (Chinese: bge-small-zh-v15-q, loaded on the first Chinese text; else e5-small-v2-q).
   */
  embeddingModel: string | undefined;
  embeddingUrl: string | undefined;
  embeddingApiKey: string | undefined;
  /** REWIND_MODEL_DIR: where local models are cached (default ~/.cache/rewind/models). */
  modelDir: string | undefined;
  llmUrl: string | undefined;
  llmModel: string | undefined;
  llmApiKey: string | undefined;
  llmTimeoutMs: number;
  /** REWIND_RERANK_URL, REWIND_RERANK_MODEL, REWIND_RERANK_API_KEY: a `/rerank` service re-orders recall's best hits (none by default). */
  rerankUrl: string | undefined;
  rerankModel: string | undefined;
  rerankApiKey: string | undefined;
  recencyWeight: number;
  /** REWIND_MEMORY_INDEXER: `thread` (default; embedding off the event loop, in worker threads) or `process`. */
  indexerPlacement: 'thread' | 'process';
  /** REWIND_MEMORY_INDEXER_CPU_SHARE: the share of one core the background indexer may keep busy (default 0.5). */
  indexerCpuShare: number;
  /** REWIND_MEMORY_INDEXER_THREADS: onnxruntime threads embedding the indexer's batches (default 1): more CPU to catch up after a burst. */
  indexerThreads: number;
  /**
   * REWIND_MEMORY_STAGES: 2 (default) makes new items searchable by keywords at once and embeds them
   * after, as the model has CPU; 1 embeds each batch before it counts as indexed (the keyword stage
   * then costs the writes nothing under a burst, and the lag grows instead). Qdrant has one stage.
   */
  indexStages: 1 | 2;
}

/** A bad memory setting: the service stops at start with this one sentence, like any other ConfigError. */
export class MemoryConfigError extends ConfigError {}

/**
 * Where the process keeps its events, as its own configuration read them: memory then follows it (on
 * PostgreSQL, the index is tables of the same database) whatever the environment it was given says.
 */
export interface MemoryDatabase {
  store: StoreKind;
  databaseUrl: string | undefined;
  /** The event store's schema (REWIND_PG_SCHEMA; default rewind). */
  pgSchema?: string | undefined;
}

export function memoryConfigFromEnv(env: NodeJS.ProcessEnv, dataDir: string, database?: MemoryDatabase): MemoryConfig {
  const read = new EnvReader(env, (message) => new MemoryConfigError(message));
  const postgresUrl = database ? database.databaseUrl : read.raw('DATABASE_URL');
  const store = database ? database.store : read.raw('REWIND_STORE');
  const sharedDefault = read.raw('QDRANT_URL') ? 'qdrant' : store === 'postgres' && postgresUrl ? 'postgres' : 'sqlite';
  const index = read.oneOfAnyCase('REWIND_MEMORY_INDEX', ['sqlite', 'qdrant', 'postgres'] as const, sharedDefault);
  const qdrantUrl = read.raw('QDRANT_URL');
  if (index === 'qdrant' && !qdrantUrl) throw new MemoryConfigError('REWIND_MEMORY_INDEX=qdrant needs QDRANT_URL (e.g. http://127.0.0.1:6333).');
  if (index === 'postgres' && !postgresUrl) {
    throw new MemoryConfigError(
      'REWIND_MEMORY_INDEX=postgres needs DATABASE_URL (the database of REWIND_STORE=postgres, e.g. postgres://user:password@127.0.0.1:5432/rewind).',
    );
  }
  const { embeddingModel, modelDir } = modelFileSettings(env);
  const embeddingUrl = read.raw('REWIND_EMBEDDING_URL');
  const llmUrl = read.raw('REWIND_LLM_URL');
  const llmModel = read.raw('REWIND_LLM_MODEL');
  if (llmUrl && !llmModel) throw new MemoryConfigError('REWIND_LLM_URL is set but REWIND_LLM_MODEL is not: name the chat model that rewrites questions.');
  const rerankUrl = read.raw('REWIND_RERANK_URL');
  const rerankModel = read.raw('REWIND_RERANK_MODEL');
  if (rerankUrl && !rerankModel) throw new MemoryConfigError('REWIND_RERANK_URL is set but REWIND_RERANK_MODEL is not: name the re-ranking model.');
  if (embeddingUrl && !embeddingModel)
    throw new MemoryConfigError('REWIND_EMBEDDING_URL is set but REWIND_EMBEDDING_MODEL is not: name the hosted embedding model.');
  return {
    enabled: read.oneOfAnyCase('REWIND_MEMORY', ['on', 'off'] as const, 'on') === 'on',
    index,
    sqliteFile: join(dataDir, 'rewind.memory.db'),
    qdrantUrl,
    qdrantApiKey: read.raw('QDRANT_API_KEY'),
    postgresUrl,
    postgresSchema: database?.pgSchema ?? read.raw('REWIND_PG_SCHEMA') ?? 'rewind',
    postgresPoolSize: read.integer('REWIND_PG_MEMORY_POOL_SIZE', 4, 2, 100),
    embeddingModel,
    embeddingUrl,
    embeddingApiKey: read.raw('REWIND_EMBEDDING_API_KEY'),
    modelDir,
    llmUrl,
    llmModel,
    llmApiKey: read.raw('REWIND_LLM_API_KEY'),
    llmTimeoutMs: read.number('REWIND_LLM_TIMEOUT_MS', 2_000, 50, 60_000),
    rerankUrl,
    rerankModel,
    rerankApiKey: read.raw('REWIND_RERANK_API_KEY'),
    recencyWeight: read.number('REWIND_MEMORY_RECENCY_WEIGHT', 0, 0, 1),
    indexerPlacement: read.oneOfAnyCase('REWIND_MEMORY_INDEXER', ['thread', 'process'] as const, 'thread'),
    indexerCpuShare: read.number('REWIND_MEMORY_INDEXER_CPU_SHARE', 0.5, 0.05, 1),
    indexerThreads: read.integer('REWIND_MEMORY_INDEXER_THREADS', 1, 1, 64),
    indexStages: read.oneOfAnyCase('REWIND_MEMORY_STAGES', ['1', '2'] as const, '2') === '1' ? 1 : 2,
  };
}

/** Where the local embedding model comes from; the defaults of `@rewind/memory/onnx` when a caller names none. */
export interface ModelFileSettings {
  /** REWIND_EMBEDDING_MODEL. */
  embeddingModel: string | undefined;
  /** REWIND_MODEL_DIR. */
  modelDir: string | undefined;
  /** REWIND_MAVEN_REPOSITORY: a mirror of Maven Central. */
  mavenRepository: string | undefined;
}

export function modelFileSettings(env: NodeJS.ProcessEnv = process.env): ModelFileSettings {
  const read = new EnvReader(env, (message) => new MemoryConfigError(message));
  return { embeddingModel: read.raw('REWIND_EMBEDDING_MODEL'), modelDir: read.raw('REWIND_MODEL_DIR'), mavenRepository: read.raw('REWIND_MAVEN_REPOSITORY') };
}
