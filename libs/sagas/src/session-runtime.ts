import type { Logger } from '@rewind/config';
import { SessionRepository, SessionService, ToolRegistry } from '@rewind/engine';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import type { CheckpointStore, SubscriptionHub, SubscriptionLoop } from '@rewind/event-store/subscriptions';
import type { MessageBus } from '@rewind/messaging';
import { BusCompensationChannel } from './channels/bus-channel';
import type { EgressPolicy } from './channels/egress-policy';
import { HttpCompensationChannel } from './channels/http-channel';
import { InlineCompensationChannel } from './channels/inline-channel';
import type { RollbackLeaseStore } from './leases/rollback-lease-store';
import { RollbackLeases } from './leases/rollback-leases';
import { RollbackSaga } from './rollback-saga';
import { RollbackSubscription } from './rollback-subscription';
import { RollbackTakeover } from './rollback-takeover';

export interface SessionRuntime {
  sessions: SessionService;
  tools: ToolRegistry;
  saga: RollbackSaga;
  /** The saga's follower of the log in the hub (null without a hub); start it once the compensation channels are in place. */
  rollbacks: SubscriptionLoop | null;
  /** Register in-process compensators here (library use, tests). */
  inline: InlineCompensationChannel;
  /**
   * With shared leases and a hub: takes over the rollbacks of processes that died. Start it
   * with `rollbacks`, stop it before them.
   */
  takeover: RollbackTakeover | null;
}

export interface SessionRuntimeOptions {
  snapshotEvery: number;
  snapshotEverySeconds?: number;
  /** The session state cache's bound in events (SessionRepositoryOptions.cacheEvents). */
  stateCacheEvents?: number;
  /** From how many events a cached state keeps its sealed history in the segments (SessionRepositoryOptions.viewsFromEvents). */
  stateViewsFromEvents?: number;
  /** Carries the `kafka` compensation channel (in-process bus or Kafka). */
  bus: MessageBus;
  logger?: Logger;
  /** Also told about every commit (metrics). */
  onCommitted?: (events: StoredEvent[]) => void;
  /** The process's subscription hub: poked after every commit, so that its followers (read models, relay, index) see it at once. */
  hub?: Pick<SubscriptionHub, 'poke' | 'add'>;
  /** Where the saga's restart scan starts (see RollbackSubscription). */
  checkpoints?: Pick<CheckpointStore, 'load' | 'save'>;
  /** Resume rollbacks left in progress when the saga's subscription starts (default true). */
  resumeRollbacks?: boolean;
  /** Told how long each rebuild of a session's state took, in seconds (metrics). */
  onRestored?: (seconds: number) => void;
  /** Where `http` and `kafka` compensations may go (default: public addresses only, any topic but Rewind's own). */
  egress?: EgressPolicy;
  /**
   * Leases shared by the processes on one database (PostgreSQL): each unfinished rollback has
   * one holder at a time, and a live process takes over those of a process that died. None:
   * this process is the only one (SQLite): rollbacks left in progress resume when it starts.
   */
  leases?: RollbackLeaseStore;
  /** REWIND_ROLLBACK_LEASE_MS: how long a rollback's lease lasts without renewal (default 6000). */
  rollbackLeaseMs?: number;
  /** This process's name in the leases (default host:pid:random): a worker's stable REWIND_WORKER_ID takes its own leases back at once after a restart. */
  rollbackLeaseHolder?: string;
}

/**
 * The write side as every process runs it (the API and the worker): the session service
 * with the tool registry, and the rollback saga, a subscription of the hub that the commits
 * asking for a rollback wake (without a hub the caller runs rollbacks itself, as library mode does).
 */
export function createSessionRuntime(store: EventStore, options: SessionRuntimeOptions): SessionRuntime {
  const tools = new ToolRegistry(store);
  const inline = new InlineCompensationChannel();
  const late: { rollbacks?: RollbackSubscription } = {}; // the saga needs the service, which must notify it
  const sessions = new SessionService(
    new SessionRepository(store, {
      snapshotEvery: options.snapshotEvery,
      ...(options.snapshotEverySeconds ? { snapshotEverySeconds: options.snapshotEverySeconds } : {}),
      ...(options.stateCacheEvents ? { cacheEvents: options.stateCacheEvents } : {}),
      ...(options.stateViewsFromEvents !== undefined ? { viewsFromEvents: options.stateViewsFromEvents } : {}),
      ...(options.onRestored ? { onRestored: options.onRestored } : {}),
    }),
    {
      tools,
      compensationEnabled: true,
      onCommitted: (_tenantId, _sessionId, events) => {
        options.onCommitted?.(events);
        if (options.hub) {
          late.rollbacks?.noteCommitted(events);
          options.hub.poke();
        }
      },
    },
  );
  const logger = options.logger ? { logger: options.logger } : {};
  const leases = options.leases
    ? new RollbackLeases(options.leases, {
        ...logger,
        ...(options.rollbackLeaseMs ? { ttlMs: options.rollbackLeaseMs } : {}),
        ...(options.rollbackLeaseHolder ? { holder: options.rollbackLeaseHolder } : {}),
      })
    : undefined;
  const saga = new RollbackSaga(
    sessions,
    [new HttpCompensationChannel(options.egress), inline, new BusCompensationChannel(options.bus, undefined, options.egress)],
    { ...logger, ...(leases ? { leases } : {}) },
  );
  late.rollbacks = new RollbackSubscription(saga, store, {
    ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
    ...(options.resumeRollbacks === false ? { resume: false } : {}),
    ...logger,
    ...(leases ? { leases } : {}),
  });
  const rollbacks = options.hub ? options.hub.add(late.rollbacks) : null;
  const takeover =
    rollbacks && leases && options.resumeRollbacks !== false
      ? new RollbackTakeover(late.rollbacks, Math.max(1, Math.floor(leases.ttlMs / 3)), options.logger)
      : null;
  return { sessions, tools, saga, rollbacks, inline, takeover };
}
