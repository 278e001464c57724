import { SubscriptionHub } from '@rewind/event-store/subscriptions';
import { type EventStore } from '@rewind/event-store';
import { CommandConsumer } from '@rewind/messaging';
import { DEFAULT_TOPICS, rewindTopicSpecs, type RewindTopics } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import type { Logger } from '@rewind/config';
import { consoleLogger, errorMessage } from '@rewind/messaging';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import type { MessageBus } from '@rewind/messaging';
import { EventRelay } from '@rewind/messaging';
import { ProjectionSupervisor, ReadModelDatabase } from '@rewind/projections';
import { embeddedDatabaseFile, openBackend, type Backend } from '@rewind/runtime';
import { createSessionRuntime } from '@rewind/sagas';
import { openRollbackLeaseStore } from '@rewind/sagas/postgres';
import { startMemoryIndexing, type MemoryIndexing } from './memory-indexing';
import { createMetricsRegistry, meteredEventStore, registerSagaMetrics, registerStoreMetrics, type HealthServer } from '@rewind/observability';
import { startWorkerApplication } from './worker-application';
import { WorkerHealth } from './worker-health';
import { recordedCallOf, WorkspaceCommandDispatch } from './workspace-channel';
import { openWorkspaceChannel, type WorkspaceChannel } from '@rewind/sagas/workspace';
import type { WorkerConfig } from './worker-config';

export interface Worker {
  readonly bus: MessageBus;
  readonly store: EventStore;
  readonly topics: RewindTopics;
  readonly commands: CommandConsumer | null;
  readonly relay: EventRelay | null;
  /** Long-term memory indexing from `rewind.events` (Kafka mode only). */
  readonly memory: MemoryIndexing | null;
  /** The HTTP server of /health/live, /health/ready and /metrics (null with REWIND_WORKER_HTTP=off). */
  readonly health: HealthServer | null;
  /** File changes under REWIND_WORKSPACE_ROOT, undone on rollback (null when it is not set). */
  readonly workspace: WorkspaceChannel | null;
  /** Graceful: finishes the command and the relay batch in flight, commits offsets, closes everything. */
  stop(): Promise<void>;
}

/** The embedded SQLite file the API also uses. */
export const databaseFile = embeddedDatabaseFile;

/**
 * Starts the background consumers of one worker process over the stores of `backend` (by
 * default the configured one, opened here and closed by `stop()`; a backend passed in stays
 * its opener's to close). Several workers can run at once: Kafka's consumer group shares the
 * command partitions among them, and a lease lets one relay publish while the others stand by.
 */
export async function startWorker(
  config: WorkerConfig,
  logger: (context: string) => Logger = (c) => consoleLogger(c, config.logLevel),
  backend?: Backend,
): Promise<Worker> {
  const log = logger('Worker');
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) {
      await close().catch((error: unknown) => log.error(`While stopping: ${errorMessage(error)}`));
    }
  };

  try {
    const registry = createMetricsRegistry();
    const storeMetrics = registerStoreMetrics(registry);
    const sagaMetrics = registerSagaMetrics(registry);
    const stores = backend ?? (await openBackend(config));
    if (!backend) closers.push(() => stores.close());
    const { checkpoints, signingKeys } = stores;
    const store: EventStore = meteredEventStore(stores.events, storeMetrics);
    // Everything in this process that follows the log, poked by this process's commits.
    const hub = new SubscriptionHub(store);

    let bus: MessageBus;
    const topics = config.kafka?.topics ?? DEFAULT_TOPICS;
    if (config.bus === 'kafka') {
      const kafka = config.kafka!;
      const kafkaBus = new KafkaMessageBus({ brokers: kafka.brokers, clientId: kafka.clientId, logger: logger('Kafka'), ...kafka.consumer });
      bus = kafkaBus;
      closers.push(() => kafkaBus.close());
      if (kafka.createTopics) await kafkaBus.ensureTopics(rewindTopicSpecs(kafka));
    } else {
      bus = new InProcessMessageBus();
      closers.push(() => bus.close());
      log.log('REWIND_BUS=inprocess: commands and events stay inside this process. Set REWIND_BUS=kafka (and KAFKA_BROKERS) to use Kafka.');
    }

    let relay: EventRelay | null = null;
    // The same write side as the API: tool registry, and the saga started by the commits that need it.
    // PostgreSQL: each unfinished rollback has one holder among the workers and API replicas, taken over when it dies.
    const leases = await openRollbackLeaseStore(stores);
    const runtime = createSessionRuntime(store, {
      snapshotEvery: config.snapshotEvery,
      bus,
      hub,
      checkpoints,
      ...(leases ? { leases, rollbackLeaseMs: config.saga.leaseMs, ...(config.workerId ? { rollbackLeaseHolder: config.workerId } : {}) } : {}),
      // Off: this worker still runs the rollbacks its own commands ask for, but resumes none at start-up.
      resumeRollbacks: config.saga.enabled,
      logger: logger('Rollbacks'),
      egress: config.egress,
      onRestored: (seconds) => storeMetrics.restoreDuration.observe(seconds),
      onCommitted: (events) => sagaMetrics.observeCommitted(events),
    });
    const sessions = runtime.sessions;
    closers.push(() => sessions.repository.flushSnapshots()); // before the store closes
    // Before the saga resumes anything: a rollback left in progress may have workspace changes to undo.
    const workspace = config.workspace ? openWorkspaceChannel(config.workspace, runtime.inline, (m) => log.log(m)) : null;
    if (workspace) closers.push(async () => workspace.stop());
    closers.push(() => runtime.saga.stop());
    closers.push(() => runtime.rollbacks!.stop()); // closers run last first: the follower stops before the saga
    if (runtime.takeover) closers.push(() => runtime.takeover!.stop());
    runtime.rollbacks!.start();
    runtime.takeover?.start();

    if (config.relay.enabled) {
      const r = new EventRelay({
        store,
        bus,
        checkpoints,
        topic: topics.events,
        batchSize: config.relay.batchSize,
        pollIntervalMs: config.relay.pollIntervalMs,
        leaseMs: config.relay.leaseMs,
        hub,
        // A stable id lets a restarted worker take its own lease back at once instead of waiting for it to expire.
        ...(config.workerId ? { owner: config.workerId } : {}),
        logger: logger('Relay'),
      });
      r.start();
      closers.push(() => r.stop());
      relay = r;
    }

    const memory = await startMemoryIndexing({
      env: process.env,
      dataDir: config.dataDir,
      database: { store: config.store, databaseUrl: config.databaseUrl },
      bus,
      busKind: config.bus,
      eventsTopic: topics.events,
      sessions,
      logger: logger('Memory'),
      ...(stores.memoryPolicies ? { policies: stores.memoryPolicies } : {}),
    });
    if (memory) closers.push(() => memory.stop());

    let commands: CommandConsumer | null = null;
    if (config.commands.enabled) {
      // The application's handlers, as in the API: a command behaves the same over Kafka as over HTTP.
      const application = await startWorkerApplication(runtime);
      closers.push(() => application.context.close());
      const consumer = new CommandConsumer({
        bus,
        dispatch: new WorkspaceCommandDispatch(
          application.dispatch,
          workspace?.files ?? null,
          recordedCallOf((caller, id) => sessions.getState(caller, id)),
        ),
        signingKeys,
        topics,
        groupId: config.commands.groupId,
        maxAttempts: config.commands.maxAttempts,
        jsonCostLimits: config.jsonCostLimits,
        logger: logger('Commands'),
        onApplied: () => relay?.notify(), // publish a command's events now, not at the next poll
        onDeadLettered: (status) => sagaMetrics.deadLettered(status),
      });
      await consumer.start();
      closers.push(() => consumer.stop()); // stopped before the relay, so the relay sees the last commands' events
      commands = consumer;
    }

    // Read models: one active runner per projection across processes (PostgreSQL advisory
    // lock); each batch re-reads its checkpoint under a row lock, so an API process running
    // them too is safe.
    let projections: { supervisor: ProjectionSupervisor; db: ReadModelDatabase } | null = null;
    if (config.projections.enabled) {
      const readModels = await stores.readModels();
      const supervisor = new ProjectionSupervisor(store, readModels, { hub, logger: logger('Projections') });
      supervisor.start();
      closers.push(() => supervisor.stop());
      projections = { supervisor, db: readModels };
    }

    let health: HealthServer | null = null;
    if (config.http.enabled) {
      const parts = { store, pendingMigrations: () => stores.pendingMigrations(), checkpoints, relayTopic: relay ? topics.events : null, projections };
      const server = await new WorkerHealth(parts, config.readyStallSeconds * 1000, registry).serve(config.http.port, config.http.host);
      closers.push(() => server.close());
      health = server;
    }

    log.log(
      `Worker is running (bus ${config.bus}${config.kafka ? ` on ${config.kafka.brokers.join(',')}` : ''}, store ${stores.kind} (${stores.describe()}), saga ${config.saga.enabled ? 'on' : 'off'}): ` +
        `commands ${commands ? `on (group "${config.commands.groupId}")` : 'off'}, relay ${relay ? `on (to "${topics.events}")` : 'off'}, ` +
        `projections ${projections ? 'on' : 'off'}, memory indexing ${memory ? `on (from "${topics.events}")` : 'off'}, health and metrics ${health ? `on http://${config.http.host}:${health.port}` : 'off'}, ` +
        `workspace ${workspace ? `on (${workspace.files.root})` : 'off'}.`,
    );

    let stopped: Promise<void> | undefined;
    return {
      bus,
      store,
      topics,
      commands,
      relay,
      memory,
      health,
      workspace,
      stop: () => (stopped ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
