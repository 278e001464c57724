import type { EventStore } from '@rewind/event-store';
import type { CheckpointStore } from '@rewind/messaging';
import { DeterministicRewriter } from '../deterministic-rewriter';
import type { EmbeddingModel } from '../embedding-model';
import { MemoryIndexer, setMemoryPolicy, type MemoryIndexerLogger } from '../memory-indexer';
import type { MemoryPolicy, MemoryPolicyStore } from '../memory-policy';
import { OnnxEmbeddingModel } from '../onnx';
import { OpenAiEmbeddingModel, OpenAiRewriter } from '../openai';
import { QdrantVectorIndex } from '../qdrant';
import type { QueryRewriter } from '../query-rewriter';
import { MemoryRecall } from '../recall';
import type { SessionPaths } from '../session-paths';
import { SqlitePolicyStore, SqliteVectorIndex } from '../sqlite-vec';
import type { VectorIndex } from '../vector-index';
import type { MemoryConfig } from './memory-config';

export interface MemoryRuntimeOptions {
  config: MemoryConfig;
  paths: SessionPaths;
  /** For the embedded subscription; the Kafka worker feeds the indexer itself. */
  store?: EventStore;
  checkpoints?: CheckpointStore;
  /**
   * Where memory policies live: by default a table of the SQLite index file, which only this
   * host sees. On PostgreSQL pass `PostgresPolicyStore` (`@rewind/memory/postgres`), so the API
   * processes and the worker share them.
   */
  policies?: MemoryPolicyStore & { close(): void | Promise<void> };
  logger?: MemoryIndexerLogger;
}

/** Memory wired from configuration: model, index, policies, indexer, recall. */
export class MemoryRuntime {
  readonly model: EmbeddingModel;
  readonly index: VectorIndex;
  readonly policies: MemoryPolicyStore & { close(): void | Promise<void> };
  readonly rewriter: QueryRewriter;
  readonly indexer: MemoryIndexer;
  readonly recall: MemoryRecall;

  constructor(readonly options: MemoryRuntimeOptions) {
    const { config, logger } = options;
    this.model = config.embeddingUrl
      ? new OpenAiEmbeddingModel({
          url: config.embeddingUrl,
          model: config.embeddingModel!,
          ...(config.embeddingApiKey ? { apiKey: config.embeddingApiKey } : {}),
        })
      : new OnnxEmbeddingModel({
          ...(config.embeddingModel ? { model: config.embeddingModel } : {}),
          ...(config.modelDir ? { cacheDir: config.modelDir } : {}),
          ...(logger ? { log: (m: string) => logger.log(m) } : {}),
        });
    this.index =
      config.index === 'qdrant'
        ? new QdrantVectorIndex({ url: config.qdrantUrl!, ...(config.qdrantApiKey ? { apiKey: config.qdrantApiKey } : {}) })
        : new SqliteVectorIndex({ filename: config.sqliteFile });
    this.policies = options.policies ?? new SqlitePolicyStore(config.sqliteFile);
    this.rewriter =
      config.llmUrl && config.llmModel
        ? new OpenAiRewriter({
            url: config.llmUrl,
            model: config.llmModel,
            timeoutMs: config.llmTimeoutMs,
            ...(config.llmApiKey ? { apiKey: config.llmApiKey } : {}),
            ...(logger ? { logger } : {}),
          })
        : new DeterministicRewriter();
    this.indexer = new MemoryIndexer({
      index: this.index,
      model: this.model,
      policies: this.policies,
      ...(options.store ? { store: options.store } : {}),
      ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
      ...(logger ? { logger } : {}),
    });
    this.recall = new MemoryRecall(
      { index: this.index, model: this.model, paths: options.paths, rewriter: this.rewriter, policies: this.policies },
      { recencyWeight: config.recencyWeight },
    );
  }

  /** Sets a policy; `none` removes what was indexed of the session (or tenant). */
  setPolicy(tenantId: string, sessionId: string | undefined, policy: MemoryPolicy) {
    return setMemoryPolicy({ policies: this.policies, index: this.index, indexer: this.indexer }, tenantId, sessionId, policy);
  }

  /** Crypto-shredding: the session's (or tenant's) items leave the index now, every model's. */
  shred(tenantId: string, sessionId?: string): Promise<number> {
    return this.indexer.shred(sessionId === undefined ? { tenantId } : { tenantId, sessionId });
  }

  async close(): Promise<void> {
    await this.indexer.stop();
    await this.model.close();
    await this.index.close();
    await this.policies.close();
  }
}
