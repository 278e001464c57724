import type { Logger } from '@rewind/config';
import { SessionRepository, SessionService, ToolRegistry } from '@rewind/engine';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import type { CheckpointStore, SubscriptionHub, SubscriptionLoop } from '@rewind/event-store/subscriptions';
import type { MessageBus } from '@rewind/messaging';
import { BusCompensationChannel } from './channels/bus-channel';
import type { EgressPolicy } from './channels/egress-policy';
import { HttpCompensationChannel } from './channels/http-channel';
import { InlineCompensationChannel } from './channels/inline-channel';
import { RollbackSaga } from './rollback-saga';
import { RollbackSubscription } from './rollback-subscription';

export interface SessionRuntime {
  sessions: SessionService;
  tools: ToolRegistry;
  saga: RollbackSaga;
  /** The saga's follower of the log in the hub (null without a hub); start it once the compensation channels are in place. */
  rollbacks: SubscriptionLoop | null;
  /** Register in-process compensators here (library use, tests). */
  inline: InlineCompensationChannel;
}

export interface SessionRuntimeOptions {
  snapshotEvery: number;
  snapshotEverySeconds?: number;
  /** The session state cache's bound in events (SessionRepositoryOptions.cacheEvents). */
  stateCacheEvents?: number;
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
  const saga = new RollbackSaga(
    sessions,
    [new HttpCompensationChannel(options.egress), inline, new BusCompensationChannel(options.bus, undefined, options.egress)],
    { ...(options.logger ? { logger: options.logger } : {}) },
  );
  late.rollbacks = new RollbackSubscription(saga, store, {
    ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
    ...(options.resumeRollbacks === false ? { resume: false } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const rollbacks = options.hub ? options.hub.add(late.rollbacks) : null;
  return { sessions, tools, saga, rollbacks, inline };
}
