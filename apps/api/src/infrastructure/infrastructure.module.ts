import { Global, Inject, Logger, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SessionCommands, SessionQueries, SessionService, ToolRegistry } from '@rewind/engine';
import { AuditSealer, onSnapshotRejected, rejectedSnapshotCount, type EventStore } from '@rewind/event-store';
import { type MessageBus } from '@rewind/messaging';
import { InProcessMessageBus } from '@rewind/messaging/in-process';
import { createSessionRuntime, InlineCompensationChannel, RollbackSaga, type SessionRuntime } from '@rewind/sagas';
import { openRollbackLeaseStore } from '@rewind/sagas/postgres';
import { openWorkspaceChannel, type WorkspaceChannel } from '@rewind/sagas/workspace';
import { CachedApiKeyStore, TokenBuckets } from '@rewind/tenancy';
import type { RewindConfig } from '@rewind/config';
import type { Backend } from '@rewind/runtime';
import { meteredEventStore, storeSizeBytes } from '@rewind/observability';
import { RewindMetrics } from '../metrics/metrics';
import { countEventsAfter, SubscriptionHub } from '@rewind/event-store/subscriptions';
import {
  API_KEY_STORE,
  BACKEND,
  CHECKPOINT_STORE,
  DATA_KEY_STORE,
  SIGNING_KEY_STORE,
  EVENT_STORE,
  MEMORY_POLICY_STORE,
  MESSAGE_BUS,
  RATE_LIMITER,
  REWIND_CONFIG,
  SEAL_STORE,
  SESSION_RUNTIME,
  SUBSCRIPTION_HUB,
} from './tokens';

/**
 * Provides the parts of the Backend (opened by createApp before the app is built, so that an
 * unreachable database stops the start with one sentence) behind their ports, runs the
 * rollback saga, and closes the Backend last.
 */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BACKEND) private readonly backend: Backend,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly saga: RollbackSaga,
    private readonly metrics: RewindMetrics,
    private readonly sessions: SessionService,
    @Inject(REWIND_CONFIG) private readonly config: RewindConfig,
    private readonly inline: InlineCompensationChannel,
    @Inject(SESSION_RUNTIME) private readonly runtime: SessionRuntime,
  ) {}

  static forConfig(config: RewindConfig, backend: Backend): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: REWIND_CONFIG, useValue: config },
        { provide: BACKEND, useValue: backend },
        { provide: RewindMetrics, useFactory: () => new RewindMetrics() },
        { provide: EVENT_STORE, inject: [RewindMetrics], useFactory: (metrics: RewindMetrics) => meteredEventStore(backend.events, metrics.store) },
        // Cached: a lookup on the file's second connection costs ~40 µs per request under write load. The cache
        // rereads the keys' change counter every 250 ms, so a revocation is honoured within a second.
        { provide: API_KEY_STORE, useValue: new CachedApiKeyStore(backend.apiKeys) },
        { provide: CHECKPOINT_STORE, useValue: backend.checkpoints },
        { provide: SEAL_STORE, useValue: backend.seals },
        { provide: DATA_KEY_STORE, useValue: backend.dataKeys },
        { provide: SIGNING_KEY_STORE, useValue: backend.signingKeys },
        { provide: MEMORY_POLICY_STORE, useValue: backend.memoryPolicies },
        { provide: RATE_LIMITER, useFactory: () => new TokenBuckets({ perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst }) },
        { provide: MESSAGE_BUS, useFactory: () => new InProcessMessageBus() },
        { provide: SUBSCRIPTION_HUB, inject: [EVENT_STORE], useFactory: (store: EventStore) => new SubscriptionHub(store) },
        {
          provide: SESSION_RUNTIME,
          inject: [EVENT_STORE, MESSAGE_BUS, RewindMetrics, SUBSCRIPTION_HUB],
          useFactory: async (store: EventStore, bus: MessageBus, metrics: RewindMetrics, hub: SubscriptionHub) => {
            // PostgreSQL: each unfinished rollback has one holder among the replicas and workers, taken over when it dies.
            const leases = await openRollbackLeaseStore(backend);
            return createSessionRuntime(store, {
              snapshotEvery: config.snapshotEvery,
              snapshotEverySeconds: config.snapshotEverySeconds,
              stateCacheEvents: config.stateCacheEvents,
              stateViewsFromEvents: config.stateViewsFromEvents,
              bus,
              hub,
              checkpoints: backend.checkpoints,
              ...(leases ? { leases, rollbackLeaseMs: config.rollbackLeaseMs } : {}),
              logger: new Logger('Rollbacks'),
              egress: config.egress,
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
        BACKEND,
        EVENT_STORE,
        API_KEY_STORE,
        CHECKPOINT_STORE,
        SEAL_STORE,
        DATA_KEY_STORE,
        SIGNING_KEY_STORE,
        MEMORY_POLICY_STORE,
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

  /** Seals new events into the audit hash chains every second (`rewind audit verify`). */
  private sealer: AuditSealer | null = null;
  /** REWIND_WORKSPACE_ROOT: this process's saga undoes the workers' workspace changes (same folder). */
  private workspace: WorkspaceChannel | null = null;

  async onApplicationBootstrap(): Promise<void> {
    this.metrics.gauge('rewind_store_last_position', 'The global log position readers may see', () => this.store.lastPosition());
    this.metrics.gauge('rewind_store_size_bytes', "Bytes the event store takes on disk (its growth rate is seed 001's storage metric)", () =>
      storeSizeBytes(this.backend.events, this.backend.databaseFile),
    );
    this.metrics.gauge(
      'rewind_state_cache_events',
      "Events' worth of session state held in memory (bounded by REWIND_STATE_CACHE_EVENTS; the heap follows it)",
      () => this.sessions.repository.cachedEvents,
    );
    this.metrics.gauge('rewind_rollbacks_running', 'Rollbacks this process is carrying out now', () => this.saga.runningCount);
    this.registerRelayLag();
    this.sealer = new AuditSealer(this.store, this.backend.seals, this.config.auditSealIntervalMs, (m) => new Logger('Audit').warn(m));
    this.sealer.start();
    this.watchSnapshotSeals();
    if (this.config.workspace) this.workspace = openWorkspaceChannel(this.config.workspace, this.inline, (m) => new Logger('Workspace').log(m));
    // After the workspace channel: a rollback left in progress may have workspace changes to undo.
    // Its first batches resume the rollbacks left in progress when the service last stopped.
    this.runtime.rollbacks?.start();
    this.runtime.takeover?.start();
  }

  /** A snapshot whose seal does not hold is never served (the store replays instead): counted, and the first one said. */
  private watchSnapshotSeals(): void {
    this.metrics.gauge(
      'rewind_snapshots_rejected',
      'Snapshots not served since the process started because their seal did not hold (altered in the database)',
      () => rejectedSnapshotCount(),
    );
    const stop = onSnapshotRejected(({ streamId, version, problem }) => {
      stop();
      new Logger('Audit').warn(
        `The snapshot of ${streamId} at version ${version} was not served: ${problem}. The state was rebuilt from the events instead, so answers stay right, only slower. Someone with write access to the database changed it: run \`rewind audit verify\` to list every such snapshot, find out who, then delete them (\`rewind retention snapshots\`). Further ones are counted in rewind_snapshots_rejected, not logged.`,
      );
    });
  }

  /**
   * In a Kafka deployment the relay runs in the workers; its checkpoint is in the shared
   * store, so the API can report how far `rewind.events` is behind the log.
   */
  private registerRelayLag(): void {
    const topic = this.config.relayTopic;
    if (!topic) return;
    const store = this.store;
    const checkpoints = this.backend.checkpoints;
    this.metrics.registerLag(`relay:${topic}`, async () => countEventsAfter(store, await checkpoints.load(`relay:${topic}`)));
  }

  async onApplicationShutdown(): Promise<void> {
    this.workspace?.stop();
    await this.sealer?.stop();
    await this.runtime.takeover?.stop();
    await this.runtime.rollbacks?.stop();
    await this.saga.stop(); // gives its leases up: another replica carries on at once
    await this.sessions.repository.flushSnapshots();
    await this.bus.close();
    await this.backend.close();
  }
}
