import { join } from 'node:path';
import { ConfigError } from '@rewind/config';

/** Memory's settings, from the environment (see README, "Long-term memory"). */
export interface MemoryConfig {
  /** REWIND_MEMORY=off turns indexing and recall off (default on). */
  enabled: boolean;
  /** REWIND_MEMORY_INDEX: `sqlite` (embedded, default) or `qdrant` (default when QDRANT_URL is set). */
  index: 'sqlite' | 'qdrant';
  /** The embedded index file: `<data dir>/rewind.memory.db`, beside the event store's. */
  sqliteFile: string;
  qdrantUrl: string | undefined;
  qdrantApiKey: string | undefined;
  /** REWIND_EMBEDDING_MODEL: a local model id, or the hosted model's name when REWIND_EMBEDDING_URL is set. */
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
}

/** A bad memory setting: the service stops at start with this one sentence, like any other ConfigError. */
export class MemoryConfigError extends ConfigError {}

function number(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new MemoryConfigError(`${name}=${raw} is not valid: use a number from ${min} to ${max}.`);
  return value;
}

export function memoryConfigFromEnv(env: Record<string, string | undefined>, dataDir: string): MemoryConfig {
  const switch_ = (env.REWIND_MEMORY ?? 'on').toLowerCase();
  if (!['on', 'off'].includes(switch_)) throw new MemoryConfigError(`REWIND_MEMORY=${env.REWIND_MEMORY} is not valid: use "on" (default) or "off".`);
  const index = (env.REWIND_MEMORY_INDEX ?? (env.QDRANT_URL ? 'qdrant' : 'sqlite')).toLowerCase();
  if (index !== 'sqlite' && index !== 'qdrant') throw new MemoryConfigError(`REWIND_MEMORY_INDEX=${index} is not valid: use "sqlite" or "qdrant".`);
  if (index === 'qdrant' && !env.QDRANT_URL) throw new MemoryConfigError('REWIND_MEMORY_INDEX=qdrant needs QDRANT_URL (e.g. http://127.0.0.1:6333).');
  if (env.REWIND_LLM_URL && !env.REWIND_LLM_MODEL)
    throw new MemoryConfigError('REWIND_LLM_URL is set but REWIND_LLM_MODEL is not: name the chat model that rewrites questions.');
  if (env.REWIND_RERANK_URL && !env.REWIND_RERANK_MODEL)
    throw new MemoryConfigError('REWIND_RERANK_URL is set but REWIND_RERANK_MODEL is not: name the re-ranking model.');
  if (env.REWIND_EMBEDDING_URL && !env.REWIND_EMBEDDING_MODEL) {
    throw new MemoryConfigError('REWIND_EMBEDDING_URL is set but REWIND_EMBEDDING_MODEL is not: name the hosted embedding model.');
  }
  const placement = (env.REWIND_MEMORY_INDEXER ?? 'thread').toLowerCase();
  if (placement !== 'thread' && placement !== 'process') {
    throw new MemoryConfigError(
      `REWIND_MEMORY_INDEXER=${env.REWIND_MEMORY_INDEXER} is not valid: use "thread" (default: embedding in a worker thread) or "process".`,
    );
  }
  return {
    enabled: switch_ === 'on',
    index,
    sqliteFile: join(dataDir, 'rewind.memory.db'),
    qdrantUrl: env.QDRANT_URL || undefined,
    qdrantApiKey: env.QDRANT_API_KEY || undefined,
    embeddingModel: env.REWIND_EMBEDDING_MODEL || undefined,
    embeddingUrl: env.REWIND_EMBEDDING_URL || undefined,
    embeddingApiKey: env.REWIND_EMBEDDING_API_KEY || undefined,
    modelDir: env.REWIND_MODEL_DIR || undefined,
    llmUrl: env.REWIND_LLM_URL || undefined,
    llmModel: env.REWIND_LLM_MODEL || undefined,
    llmApiKey: env.REWIND_LLM_API_KEY || undefined,
    llmTimeoutMs: number(env, 'REWIND_LLM_TIMEOUT_MS', 2_000, 50, 60_000),
    rerankUrl: env.REWIND_RERANK_URL || undefined,
    rerankModel: env.REWIND_RERANK_MODEL || undefined,
    rerankApiKey: env.REWIND_RERANK_API_KEY || undefined,
    recencyWeight: number(env, 'REWIND_MEMORY_RECENCY_WEIGHT', 0, 0, 1),
    indexerPlacement: placement,
    indexerCpuShare: number(env, 'REWIND_MEMORY_INDEXER_CPU_SHARE', 0.5, 0.05, 1),
  };
}
