import { Global, Inject, Logger, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import { SessionCommands, SessionQueries, SessionService, ToolRegistry } from '@rewind/engine';
import { AuditSealer, type EventStore } from '@rewind/event-store';
import { SqliteEventStore, SqliteSealStore } from '@rewind/event-store/sqlite';
import { PostgresEventStore, PostgresSealStore } from '@rewind/event-store/postgres';
import { EventStoreDbEventStore } from '@rewind/event-store/eventstoredb';
import { type CheckpointStore, type MessageBus } from '@rewind/messaging';
import { SqliteCheckpointStore } from '@rewind/messaging/sqlite';
import { PostgresCheckpointStore } from '@rewind/messaging/postgres';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { createSessionRuntime, InlineCompensationChannel, RollbackSaga, type SessionRuntime } from '@rewind/sagas';
import { openWorkspaceChannel, type WorkspaceChannel } from '@rewind/sagas/workspace';
import { CachedApiKeyStore, TokenBuckets, type ApiKeyStore } from '@rewind/tenancy';
import { SqliteApiKeyStore } from '@rewind/tenancy/sqlite';
import { PostgresApiKeyStore } from '@rewind/tenancy/postgres';
import type { RewindConfig } from '@rewind/config';
import { meteredEventStore, storeSizeBytes } from '@rewind/observability';
import { RewindMetrics } from '../metrics/metrics';
import { countEventsAfter, SubscriptionHub } from '@rewind/event-store/subscriptions';
import { API_KEY_STORE, EVENT_STORE, MESSAGE_BUS, RATE_LIMITER, REWIND_CONFIG, SESSION_RUNTIME, SUBSCRIPTION_HUB } from './tokens';

export interface OpenedStores {
  events: EventStore;
  keys: ApiKeyStore;
}

/**
 * Opens the configured stores before the app is built, so that an unreachable database
 * stops the start with one clear sentence (PostgresUnavailableError, EventStoreDbUnavailableError)
 * instead of a stack. On EventStoreDB only the events move there: API keys, checkpoints, seals
 * and read models stay in the embedded file, as with REWIND_STORE=sqlite.
 */
export async function openStores(config: RewindConfig): Promise<OpenedStores> {
  if (config.store === 'postgres') {
    const events = await PostgresEventStore.open({ connectionString: config.databaseUrl!, poolSize: config.pgPoolSize });
    return { events, keys: new CachedApiKeyStore(await PostgresApiKeyStore.open(events.pool)) };
  }
  const databaseFile = join(config.dataDir, 'rewind.db');
  if (config.store === 'eventstoredb') {
    const events = await EventStoreDbEventStore.open({ url: config.eventStoreDbUrl!, namespace: config.eventStoreDbNamespace });
    return { events, keys: new CachedApiKeyStore(new SqliteApiKeyStore(databaseFile)) };
  }
  // Cached as on PostgreSQL: a lookup on the file's second connection costs ~40 µs per request under write load.
  // The cache rereads the keys' change counter every 250 ms, so a revocation is honoured within a second.
  return {
    events: new SqliteEventStore({ filename: databaseFile, synchronous: config.sqliteSynchronous }),
    keys: new CachedApiKeyStore(new SqliteApiKeyStore(databaseFile)),
  };
}

/** Wires the adapters chosen by configuration behind their ports, and runs the rollback saga. */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Rollbacks');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(API_KEY_STORE) private readonly keys: ApiKeyStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly saga: RollbackSaga,
    private readonly metrics: RewindMetrics,
    private readonly sessions: SessionService,
    @Inject(REWIND_CONFIG) private readonly config: RewindConfig,
    private readonly inline: InlineCompensationChannel,
  ) {}

  static forConfig(config: RewindConfig, stores: OpenedStores): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: REWIND_CONFIG, useValue: config },
        { provide: RewindMetrics, useFactory: () => new RewindMetrics() },
        { provide: EVENT_STORE, inject: [RewindMetrics], useFactory: (metrics: RewindMetrics) => meteredEventStore(stores.events, metrics.store) },
        { provide: API_KEY_STORE, useValue: stores.keys },
        { provide: RATE_LIMITER, useFactory: () => new TokenBuckets({ perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst }) },
        { provide: MESSAGE_BUS, useFactory: () => new InProcessMessageBus() },
        { provide: SUBSCRIPTION_HUB, inject: [EVENT_STORE], useFactory: (store: EventStore) => new SubscriptionHub(store) },
        {
          provide: SESSION_RUNTIME,
          inject: [EVENT_STORE, MESSAGE_BUS, RewindMetrics, SUBSCRIPTION_HUB],
          useFactory: (store: EventStore, bus: MessageBus, metrics: RewindMetrics, hub: SubscriptionHub) => {
            const logger = new Logger('Rollbacks');
            return createSessionRuntime(store, {
              snapshotEvery: config.snapshotEvery,
              snapshotEverySeconds: config.snapshotEverySeconds,
              bus,
              hub,
              log: (m) => logger.warn(m),
              onCommitted: (events) => {
                events.forEach((e) => metrics.eventsAppended.inc({ type: e.type }));
                metrics.saga.observeCommitted(events);
              },
              onRestored: (seconds) => metrics.store.restoreDuration.observe(seconds),
            });
          },
        },
        { provide: SessionService, inject: [SESSION_RUNTIME], useFactory: (r: SessionRuntime) => r.sessions },
        { provide: SessionCommands, inject: [SESSION_RUNTIME], useFactory: (r: SessionRuntime) => r.sessions.commands },
        { provide: SessionQueries, inject: [SESSION_RUNTIME], useFactory: (r: SessionRuntime) => r.sessions.queries },
        { provide: ToolRegistry, inject: [SESSION_RUNTIME], useFactory: (r: SessionRuntime) => r.tools },
        { provide: RollbackSaga, inject: [SESSION_RUNTIME], useFactory: (r: SessionRuntime) => r.saga },
        { provide: InlineCompensationChannel, inject: [SESSION_RUNTIME], useFactory: (r: SessionRuntime) => r.inline },
      ],
      exports: [
        REWIND_CONFIG,
        EVENT_STORE,
        API_KEY_STORE,
        RATE_LIMITER,
        MESSAGE_BUS,
        SUBSCRIPTION_HUB,
        RewindMetrics,
        SessionService,
        SessionCommands,
        SessionQueries,
        ToolRegistry,
        InlineCompensationChannel,
        RollbackSaga,
      ],
    };
  }

  /** Subscriber checkpoints in the shared store (the saga's restart scan; the relay's, read for its lag). */
  private checkpoints!: CheckpointStore;
  /** Seals new events into the audit hash chains every second (`rewind audit verify`). */
  private sealer: AuditSealer | null = null;
  private sealStore: SqliteSealStore | PostgresSealStore | null = null;
  /** REWIND_WORKSPACE_ROOT: this process's saga undoes the workers' workspace changes (same folder). */
  private workspace: WorkspaceChannel | null = null;

  async onApplicationBootstrap(): Promise<void> {
    this.checkpoints =
      this.store instanceof PostgresEventStore
        ? new PostgresCheckpointStore(this.store.pool)
        : new SqliteCheckpointStore(join(this.config.dataDir, 'rewind.db'));
    this.metrics.gauge('rewind_store_last_position', 'The global log position readers may see', () => this.store.lastPosition());
    this.metrics.gauge('rewind_store_size_bytes', "Bytes the event store takes on disk (its growth rate is seed 001's storage metric)", () =>
      storeSizeBytes(this.store, join(this.config.dataDir, 'rewind.db')),
    );
    this.metrics.gauge('rewind_rollbacks_running', 'Rollbacks this process is carrying out now', () => this.saga.runningCount);
    this.registerRelayLag();
    this.sealStore =
      this.store instanceof PostgresEventStore
        ? new PostgresSealStore(this.store.pool, this.store.schema)
        : new SqliteSealStore(join(this.config.dataDir, 'rewind.db'));
    this.sealer = new AuditSealer(this.store, this.sealStore, this.config.auditSealIntervalMs, (m) => new Logger('Audit').warn(m));
    this.sealer.start();
    if (this.config.workspace) this.workspace = openWorkspaceChannel(this.config.workspace, this.inline, (m) => new Logger('Workspace').log(m));
    const resumed = await this.saga.resumeAll(this.store, this.checkpoints);
    if (resumed > 0) this.logger.log(`Resuming ${resumed} rollback(s) that were in progress when the service last stopped.`);
  }

  /**
   * In a Kafka deployment the relay runs in the workers; its checkpoint is in the shared
   * store, so the API can report how far `rewind.events` is behind the log.
   */
  private registerRelayLag(): void {
    const topic = this.config.relayTopic;
    if (!topic) return;
    const store = this.store;
    const checkpoints = this.checkpoints;
    this.metrics.registerLag(`relay:${topic}`, async () => countEventsAfter(store, await checkpoints.load(`relay:${topic}`)));
  }

  async onApplicationShutdown(): Promise<void> {
    this.workspace?.stop();
    await this.sealer?.stop();
    await this.sealStore?.close();
    await this.checkpoints?.close();
    await this.saga.stop();
    await this.sessions.repository.flushSnapshots();
    await this.bus.close();
    await this.keys.close();
    await this.store.close();
  }
}
