import { SessionRepository, SessionService, ToolRegistry } from '@rewind/engine';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import type { SubscriptionHub } from '@rewind/event-store/subscriptions';
import type { MessageBus } from '@rewind/messaging';
import { BusCompensationChannel } from './channels/bus-channel';
import { HttpCompensationChannel } from './channels/http-channel';
import { InlineCompensationChannel } from './channels/inline-channel';
import { RollbackSaga } from './rollback-saga';

/** Events after which the saga has work to do on a rollback. */
export function rollbackToRun(events: StoredEvent[]): string | null {
  for (const event of events) {
    const data = event.data as { rollbackId?: string; plan?: { action: string }[] };
    if (event.type === 'RollbackRequested' && data.plan?.some((i) => i.action === 'compensate')) return data.rollbackId!;
    if (event.type === 'CompensationRetryRequested' || event.type === 'CompensationResolved') return data.rollbackId!;
  }
  return null;
}

export interface SessionRuntime {
  sessions: SessionService;
  tools: ToolRegistry;
  saga: RollbackSaga;
  /** Register in-process compensators here (library use, tests). */
  inline: InlineCompensationChannel;
}

export interface SessionRuntimeOptions {
  snapshotEvery: number;
  snapshotEverySeconds?: number;
  /** Carries the `kafka` compensation channel (in-process bus or Kafka). */
  bus: MessageBus;
  log?: (message: string) => void;
  /** Also told about every commit (metrics). */
  onCommitted?: (events: StoredEvent[]) => void;
  /** The process's subscription hub: poked after every commit, so that its followers (read models, relay, index) see it at once. */
  hub?: Pick<SubscriptionHub, 'poke'>;
  /** Told how long each rebuild of a session's state took, in seconds (metrics). */
  onRestored?: (seconds: number) => void;
}

/**
 * The write side as every process runs it (the API and the worker): the session service
 * with the tool registry, and the rollback saga, started by the commits that need it.
 */
export function createSessionRuntime(store: EventStore, options: SessionRuntimeOptions): SessionRuntime {
  const tools = new ToolRegistry(store);
  const inline = new InlineCompensationChannel();
  const late: { saga?: RollbackSaga } = {}; // the saga needs the service, which must notify it
  const sessions = new SessionService(
    new SessionRepository(store, {
      snapshotEvery: options.snapshotEvery,
      ...(options.snapshotEverySeconds ? { snapshotEverySeconds: options.snapshotEverySeconds } : {}),
      ...(options.onRestored ? { onRestored: options.onRestored } : {}),
    }),
    {
      tools,
      compensationEnabled: true,
      onCommitted: (tenantId, sessionId, events) => {
        options.onCommitted?.(events);
        options.hub?.poke();
        const rollbackId = rollbackToRun(events);
        if (rollbackId) late.saga?.kick(tenantId, sessionId, rollbackId);
      },
    },
  );
  late.saga = new RollbackSaga(sessions, [new HttpCompensationChannel(), inline, new BusCompensationChannel(options.bus)], {
    ...(options.log ? { log: options.log } : {}),
  });
  return { sessions, tools, saga: late.saga, inline };
}
