import type { SessionService } from '@rewind/engine';
import { EngineSessionPaths, type MemorySourceEvent } from '@rewind/memory';
import { MemoryRuntime, memoryConfigFromEnv, type MemoryDatabase, type MemoryRuntimeOptions } from '@rewind/memory/runtime';
import { holdIndexFile } from '@rewind/memory/sqlite-vec';
import type { Logger } from '@rewind/config';
import type { MessageBus, Subscription } from '@rewind/messaging';

export interface MemoryIndexing {
  readonly runtime: MemoryRuntime;
  stop(): Promise<void>;
}

/**
 * The consumer group the memory indexer reads `rewind.events` in. Kafka's committed offsets
 * are the indexer's checkpoint here, and a checkpoint follows its index: a shared index
 * (PostgreSQL, Qdrant) is fed by one group whose members split the partitions; a local SQLite index must
 * see every partition, so each worker's gets a group of its own, named after its stable
 * REWIND_WORKER_ID. KAFKA_MEMORY_GROUP_ID, when set, wins (and must then be unique per worker
 * with a local index).
 */
export function memoryGroupId(env: Record<string, string | undefined>, index: 'sqlite' | 'qdrant' | 'postgres'): string {
  if (env.KAFKA_MEMORY_GROUP_ID) return env.KAFKA_MEMORY_GROUP_ID;
  if (index === 'sqlite' && env.REWIND_WORKER_ID) return `rewind-memory-indexer.${env.REWIND_WORKER_ID}`;
  return 'rewind-memory-indexer';
}

/**
 * Distributed mode (seed 003's drawing): the worker consumes `rewind.events` from Kafka and
 * indexes each event's memory items (at least once; upserts by event id make a redelivery
 * harmless). Embedding and index writes run in a worker thread (REWIND_MEMORY_INDEXER=thread,
 * the default), so command handling on this process's event loop is not held up by them; each
 * message is acknowledged only after its items are in the index (a SQLite index: searchable by
 * keywords, embedded after from the index's own backlog; Qdrant: embedded). In embedded mode (in-process bus) the API process indexes instead, so this
 * returns null. REWIND_MEMORY=off turns it off.
 */
export async function startMemoryIndexing(options: {
  env: Record<string, string | undefined>;
  dataDir: string;
  bus: MessageBus;
  busKind: 'inprocess' | 'kafka';
  eventsTopic: string;
  sessions: SessionService;
  logger: Logger;
  /** On PostgreSQL: memory policies are read there, shared with the API. */
  policies?: MemoryRuntimeOptions['policies'];
  /** The worker's store (its configuration): on PostgreSQL the memory index is tables of that database, shared with the API. */
  database?: MemoryDatabase;
}): Promise<MemoryIndexing | null> {
  const config = memoryConfigFromEnv(options.env, options.dataDir, options.database);
  if (!config.enabled || options.busKind !== 'kafka') return null;
  const runtime = new MemoryRuntime({
    config,
    paths: new EngineSessionPaths(options.sessions),
    logger: options.logger,
    ...(options.policies ? { policies: options.policies } : {}),
  });
  // Tells `rewind memory rebuild` that this process has the embedded index open.
  const holder = config.index === 'sqlite' ? holdIndexFile(config.sqliteFile, 'worker') : null;
  const groupId = memoryGroupId(options.env, config.index);
  if (config.index === 'sqlite' && !options.env.KAFKA_MEMORY_GROUP_ID && !options.env.REWIND_WORKER_ID) {
    options.logger.log(
      `Memory index is local (${config.sqliteFile}) and this worker has no REWIND_WORKER_ID: it indexes in the shared group "${groupId}". Run only one such worker, or give each its REWIND_WORKER_ID, so that each local index reads every partition.`,
    );
  }
  let subscription: Subscription;
  try {
    subscription = await options.bus.subscribe(options.eventsTopic, { groupId, fromBeginning: true }, async (message) => {
      const event = JSON.parse(message.value) as MemorySourceEvent;
      await runtime.indexer.indexEvents([event]);
    });
    // Two stages (a SQLite index): a message is acknowledged once its items are searchable by keywords; they are embedded in the background.
    runtime.indexer.startEmbedding();
  } catch (error) {
    await runtime.close();
    holder?.release();
    throw error;
  }
  options.logger.log(
    `Indexing long-term memory from "${options.eventsTopic}" (group "${groupId}", ${config.index} index, embedding ${runtime.placement === 'thread' ? 'in a worker thread' : "on this process's event loop"}).`,
  );
  return {
    runtime,
    async stop() {
      await subscription.close();
      await runtime.close();
      holder?.release();
    },
  };
}
