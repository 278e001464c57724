import { SessionRepository, SessionService, ToolRegistry } from '@rewind/engine';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import type { MessageBus } from '@rewind/messaging';
import { BusCompensationChannel } from './channels/bus-channel';
import type { EgressPolicy } from './channels/egress-policy';
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
  /** Also told about every commit (metrics, waking a relay). */
  onCommitted?: (events: StoredEvent[]) => void;
  /** Told how long each rebuild of a session's state took, in seconds (metrics). */
  onRestored?: (seconds: number) => void;
  /** Where `http` and `kafka` compensations may go (default: public addresses only, any topic but Rewind's own). */
  egress?: EgressPolicy;
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
        const rollbackId = rollbackToRun(events);
        if (rollbackId) late.saga?.kick(tenantId, sessionId, rollbackId);
      },
    },
  );
  late.saga = new RollbackSaga(
    sessions,
    [new HttpCompensationChannel(options.egress), inline, new BusCompensationChannel(options.bus, undefined, options.egress)],
    {
      ...(options.log ? { log: options.log } : {}),
    },
  );
  return { sessions, tools, saga: late.saga, inline };
}
