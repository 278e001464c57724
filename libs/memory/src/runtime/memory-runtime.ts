import type { Logger } from '@rewind/config';
import type { EventStore } from '@rewind/event-store';
import type { CheckpointStore, SubscriptionHub } from '@rewind/event-store/subscriptions';
import { DeterministicRewriter } from '../deterministic-rewriter';
import type { EmbeddingModel, EmbeddingModelInfo } from '../embedding-model';
import { MemoryIndexer, setMemoryPolicy, type MemoryIndexerOptions } from '../memory-indexer';
import type { MemoryIndexerPlacement } from '../memory-item-writer';
import type { MemoryPolicy, MemoryPolicyStore } from '../memory-policy';
import { DEFAULT_LOCAL_MODEL, ensureModelFiles, localModelSpec } from '../onnx';
import { OpenAiReranker, OpenAiRewriter } from '../openai';
import type { QueryRewriter } from '../query-rewriter';
import { MemoryRecall } from '../recall';
import type { SessionPaths } from '../session-paths';
import { IndexFileCheckpoints, SqlitePolicyStore, type IndexerCheckpoints } from '../sqlite-vec';
import { IndexUnavailableError, type VectorIndex } from '../vector-index';
import type { MemoryConfig } from './memory-config';
import { embeddingModelFor, modelFusion, sharedPostgresIndex, vectorIndexFor } from './memory-parts';
import { ThreadEmbeddingModel, ThreadItemWriter, ThreadKeywordAdmitter } from './memory-thread-pool';

export interface MemoryRuntimeOptions {
  config: MemoryConfig;
  paths: SessionPaths;
  /** For the embedded subscription; the Kafka worker feeds the indexer itself. */
  store?: EventStore;
  /**
   * The shared checkpoint store (PostgreSQL table or `rewind.db`). A shared index (PostgreSQL, Qdrant)
   * keeps its progress there (with REWIND_STORE=postgres: in the same database as the index); a local SQLite index keeps its own inside its file
   * (IndexFileCheckpoints) and reads this only once, to adopt the position of an index written
   * before that (upgrade).
   */
  checkpoints?: CheckpointStore;
  /** The process's subscription hub: the indexer follows the log through it (woken by commits). */
  hub?: SubscriptionHub;
  /**
   * Where memory policies live: by default a table of the SQLite index file, which only this
   * host sees. On PostgreSQL pass `PostgresPolicyStore` (`@rewind/memory/postgres`), so the API
   * processes and the worker share them.
   */
  policies?: MemoryPolicyStore & { close(): void | Promise<void> };
  logger?: Logger;
  /**
   * Where embedding runs (default: the configuration's, REWIND_MEMORY_INDEXER). `thread`:
   * embedding and vectors in one worker thread (nice 19), the keyword stage's index writes in
   * another (normal priority), recall's questions in a third, all off the event loop;
   * `process`: in this thread (library mode; an index in `:memory:` is always `process`).
   */
  placement?: MemoryIndexerPlacement;
}

function describeIndex(config: MemoryConfig): string {
  if (config.index === 'qdrant') return `Qdrant at ${config.qdrantUrl}`;
  if (config.index === 'postgres') return `PostgreSQL, schema ${config.postgresSchema}`;
  return config.sqliteFile;
}

/** Memory wired from configuration: model, index, policies, indexer, recall. */
export class MemoryRuntime {
  /** The model recall embeds questions with (in a worker thread of its own when `placement` is `thread` and the model is local). */
  readonly model: EmbeddingModel;
  /** This thread's connection to the index: recall reads it, status counts it, policies delete from it. */
  readonly index: VectorIndex;
  readonly policies: MemoryPolicyStore & { close(): void | Promise<void> };
  readonly rewriter: QueryRewriter;
  readonly indexer: MemoryIndexer;
  readonly recall: MemoryRecall;
  readonly placement: MemoryIndexerPlacement;
  /** Where the indexer's progress is read and saved: the index file's own for a local index, else the shared store. */
  readonly checkpoints: IndexerCheckpoints | undefined;
  private opened: Promise<EmbeddingModelInfo> | undefined;
  private loaded: EmbeddingModelInfo | undefined;
  private lastOpenError: Error | undefined;

  constructor(readonly options: MemoryRuntimeOptions) {
    const { config, logger } = options;
    this.placement = config.sqliteFile === ':memory:' && config.index === 'sqlite' ? 'process' : (options.placement ?? config.indexerPlacement);
    const threaded = this.placement === 'thread';
    this.model = threaded && !config.embeddingUrl ? new ThreadEmbeddingModel(config) : embeddingModelFor(config, logger ? { logger } : {});
    // PostgreSQL: one index for the deployment, written by whichever process holds the indexer's advisory lock.
    let indexing: Pick<MemoryIndexerOptions, 'exclusivity' | 'name'> = {};
    if (config.index === 'postgres') {
      const shared = sharedPostgresIndex(config);
      this.index = shared.index;
      indexing = shared.indexing;
    } else {
      this.index = vectorIndexFor(config);
    }
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
    // The checkpoint follows the index: each local file is complete on its own, whoever else shares the log.
    this.checkpoints = !options.store
      ? undefined
      : config.index === 'sqlite'
        ? new IndexFileCheckpoints(config.sqliteFile, options.checkpoints)
        : options.checkpoints;
    this.indexer = new MemoryIndexer({
      index: this.index,
      ...(threaded ? { writer: new ThreadItemWriter(config) } : { model: this.model }),
      // Stage 1's index writes (rows, FTS5) in a thread of their own at normal priority: off the event
      // loop, yet not behind the niced writer (the keyword lag stays bounded). SQLite only: Qdrant has one stage.
      ...(threaded && config.index === 'sqlite' && config.indexStages === 2 ? { admitter: new ThreadKeywordAdmitter(config) } : {}),
      policies: this.policies,
      cpuShare: threaded ? config.indexerCpuShare : 1,
      ...indexing,
      twoStage: config.indexStages === 2,
      ...(options.store ? { store: options.store } : {}),
      ...(options.hub ? { hub: options.hub } : {}),
      ...(this.checkpoints ? { checkpoints: this.checkpoints } : {}),
      ...(logger ? { logger } : {}),
    });
    const reranker =
      config.rerankUrl && config.rerankModel
        ? new OpenAiReranker({
            url: config.rerankUrl,
            model: config.rerankModel,
            timeoutMs: config.llmTimeoutMs,
            ...(config.rerankApiKey ? { apiKey: config.rerankApiKey } : {}),
            ...(logger ? { logger } : {}),
          })
        : undefined;
    this.recall = new MemoryRecall(
      { index: this.index, model: this.model, paths: options.paths, rewriter: this.rewriter, policies: this.policies, ...(reranker ? { reranker } : {}) },
      { recencyWeight: config.recencyWeight, ...modelFusion(config) },
    );
  }

  /**
   * Makes recall ready: the local model's files (downloaded here on a first start, where the
   * logger can say so, before any thread loads them), the question model, this thread's index.
   */
  open(): Promise<EmbeddingModelInfo> {
    this.opened ??= (async () => {
      const { config, logger } = this.options;
      if (!config.embeddingUrl) {
        const spec = localModelSpec(config.embeddingModel ?? DEFAULT_LOCAL_MODEL);
        await ensureModelFiles(spec, { ...(config.modelDir ? { cacheDir: config.modelDir } : {}), ...(logger ? { logger } : {}) });
      }
      const info = await this.model.info();
      await this.index.open(info).catch((error: Error) => {
        throw new IndexUnavailableError(
          `The memory index (${describeIndex(config)}) could not be opened: ${error.message}. Recall is unavailable until it can be; the next recall tries again.`,
          { cause: error },
        );
      });
      return info;
    })();
    this.opened.then(
      (info) => {
        this.loaded = info;
        this.lastOpenError = undefined;
      },
      (error: Error) => {
        this.lastOpenError = error;
        this.opened = undefined;
      },
    );
    return this.opened;
  }

  /**
   * Where `open()` stands, for the readiness probe: `loading` until the model is in memory (a
   * process should not take traffic before: loading it takes a core for seconds), `failed` when
   * the last attempt failed (recall answers 503, writes are not affected, the next recall tries again).
   */
  modelState(): { state: 'not-opened' | 'loading' | 'loaded' } | { state: 'failed'; error: Error } {
    if (this.loaded) return { state: 'loaded' };
    if (this.opened) return { state: 'loading' };
    if (this.lastOpenError) return { state: 'failed', error: this.lastOpenError };
    return { state: 'not-opened' };
  }

  /** Sets a policy; `none` removes what was indexed of the session (or tenant), like a shred. */
  setPolicy(tenantId: string, sessionId: string | undefined, policy: MemoryPolicy) {
    return setMemoryPolicy({ policies: this.policies, index: this.index, indexer: this.indexer }, tenantId, sessionId, policy);
  }

  /** Crypto-shredding: the session's (or tenant's) items leave the index now, every model's. */
  shred(tenantId: string, sessionId?: string): Promise<number> {
    return this.indexer.shred(sessionId === undefined ? { tenantId } : { tenantId, sessionId });
  }

  /** Stops indexing (after the batch in hand, its checkpoint saved), ends the threads, closes the index. */
  async close(): Promise<void> {
    await this.indexer.stop();
    await this.model.close();
    await this.index.close();
    await this.policies.close();
    // Only the file's own; the shared store belongs to the caller.
    if (this.checkpoints instanceof IndexFileCheckpoints) await this.checkpoints.close();
  }
}
