import { Inject, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { RewindConfig } from '@rewind/config';
import { SessionService } from '@rewind/engine';
import { type EventStore } from '@rewind/event-store';
import type { CheckpointStore, SubscriptionHub } from '@rewind/event-store/subscriptions';
import { EngineSessionPaths, type EmbeddingModelInfo } from '@rewind/memory';
import { MemoryRuntime, memoryConfigFromEnv } from '@rewind/memory/runtime';
import { holdIndexFile } from '@rewind/memory/sqlite-vec';
import type { Backend } from '@rewind/runtime';
import { CHECKPOINT_STORE, EVENT_STORE, MEMORY_POLICY_STORE, REWIND_CONFIG, SUBSCRIPTION_HUB } from '../infrastructure/tokens';
import { RewindMetrics } from '../metrics/metrics';
import { MemoryController } from './memory.controller';
import { MEMORY_RUNTIME } from './memory-runtime.provider';
import { MemoryStatusHandler } from './memory-status.query';
import { RecallHandler } from './recall.query';
import { SetMemoryPolicyHandler } from './set-memory-policy.command';
import { ShredSessionMemoryHandler } from './shred-session-memory.command';

/**
 * Long-term memory in the API process. Embedded mode (no Kafka relay configured): the
 * indexer follows the store's global log here, off the write path. With a relay topic the
 * worker indexes from `rewind.events` and this process only recalls.
 */
@Module({
  controllers: [MemoryController],
  providers: [
    {
      provide: MEMORY_RUNTIME,
      inject: [REWIND_CONFIG, EVENT_STORE, CHECKPOINT_STORE, MEMORY_POLICY_STORE, SessionService, SUBSCRIPTION_HUB],
      useFactory: (
        config: RewindConfig,
        store: EventStore,
        checkpoints: CheckpointStore,
        policies: Backend['memoryPolicies'],
        sessions: SessionService,
        hub: SubscriptionHub,
      ) => {
        const memoryConfig = memoryConfigFromEnv(process.env, config.dataDir, config);
        if (!memoryConfig.enabled) return null;
        const logger = new Logger('Memory');
        // The shared checkpoint store: Qdrant's progress; a local index keeps its own in its file
        // and reads this only once, to carry on where an index written by an older version got to.
        return new MemoryRuntime({
          config: memoryConfig,
          paths: new EngineSessionPaths(sessions),
          store,
          checkpoints,
          hub,
          logger,
          // Shared with the other API processes and the worker (PostgreSQL); else the index file's own.
          ...(policies ? { policies } : {}),
        });
      },
    },
    RecallHandler,
    MemoryStatusHandler,
    SetMemoryPolicyHandler,
    ShredSessionMemoryHandler,
  ],
  // The readiness probe asks whether the model is loaded.
  exports: [MEMORY_RUNTIME],
})
export class MemoryModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Memory');
  /** Tells `rewind memory rebuild` that this process has the embedded index open. */
  private holder: { release(): void } | null = null;

  constructor(
    @Inject(MEMORY_RUNTIME) private readonly memory: MemoryRuntime | null,
    @Inject(REWIND_CONFIG) private readonly config: RewindConfig,
    private readonly metrics: RewindMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.memory) {
      this.logger.log('Long-term memory is off (REWIND_MEMORY=off).');
      return;
    }
    const indexer = this.memory.indexer;
    const { config } = this.memory.options;
    if (config.index === 'sqlite') this.holder = holdIndexFile(config.sqliteFile, 'API');
    // With two stages, the lag is the keyword stage's (events not yet searchable); the vectors' backlog is a gauge of its own.
    this.metrics.registerLag('memory-indexer', async () => (await indexer.status()).lag);
    this.metrics.gauge(
      'rewind_memory_pending_vectors',
      'Memory items searchable by keywords but not yet embedded (two-stage indexing: grows under a burst, catches up after).',
      async () => (await indexer.status()).pendingVectors,
    );
    // The backlog's drain (stage 2) and inflow (stage 1), items per second over the last minute: drain below inflow, the backlog grows.
    this.metrics.gauge(
      'rewind_memory_vectors_per_second',
      'Memory items embedded per second over the last minute (two-stage indexing: how fast the backlog of pending vectors drains).',
      async () => (await indexer.status()).vectorsPerSecond,
    );
    this.metrics.gauge(
      'rewind_memory_admitted_per_second',
      'Memory items made searchable by keywords per second over the last minute (two-stage indexing: how fast the backlog of pending vectors fills).',
      async () => (await indexer.status()).admittedPerSecond,
    );
    // Which embedding models hold items (with language routing, one per language).
    this.metrics.labelledGauge('rewind_memory_items', 'Items in the memory index, by embedding model.', 'model', async () =>
      Object.fromEntries((await indexer.status()).models.map((m) => [m.id, m.items])),
    );
    // Load (on the very first start: download) the embedding model before the process listens:
    // loading takes a core for seconds, which the first turns would otherwise share (issue 40).
    // A model that cannot be had is said here, not at the first recall, and does not stop the
    // service; one that takes longer than MODEL_WAIT_MS (a slow first download) goes on in the
    // background, and /health/ready says "loading" until it is in.
    const opened = this.memory.open().then(
      (model) => this.logger.log(`Memory ready: ${describeModels(model)}.`),
      (error: Error) => this.logger.error(`${error.message} Recall answers 503 until then; writes are not affected.`),
    );
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([opened, new Promise((resolve) => (waited = setTimeout(resolve, MODEL_WAIT_MS)))]);
    clearTimeout(waited);
    if (this.config.relayTopic) {
      this.logger.log(`Memory is indexed by the worker from "${this.config.relayTopic}"; this process recalls.`);
      return;
    }
    indexer.start();
    const { index, indexerCpuShare } = this.memory.options.config;
    if (index === 'postgres') {
      this.logger.log(
        'Memory is one index in PostgreSQL for every process: the process holding its indexer lock indexes the log, the others stand by and recall from it.',
      );
    }
    this.logger.log(
      this.memory.placement === 'thread'
        ? `Indexing long-term memory in a worker thread (${index} index, at nice 19: all of an idle core, at most ${Math.round(indexerCpuShare * 100)} % of one while the machine is busy; items are searchable by keywords at once, and their vectors' lag grows under bursts and catches up after).`
        : `Indexing long-term memory on this process's event loop (${index} index; REWIND_MEMORY_INDEXER=process).`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.memory?.close();
    this.holder?.release();
  }
}

/** How long the process waits for the embedding model before it listens anyway (reporting not ready until the model is in). */
const MODEL_WAIT_MS = 30_000;

/** The models items are embedded with: one, or (language routing) one per language, the first loaded now and the others with their language's first text. */
function describeModels(model: EmbeddingModelInfo): string {
  if (!model.spaces || model.spaces.length < 2) return `embedding model ${model.id} (${model.dimensions} dimensions)`;
  const spaces = model.spaces.map(
    (space, i) => `${space.language} → ${space.id} (${space.dimensions} dimensions, ${i === 0 ? 'loaded' : `loads with the first ${space.language} text`})`,
  );
  return `embedding models by language: ${spaces.join(', ')}`;
}
