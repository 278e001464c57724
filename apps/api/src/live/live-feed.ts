import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@rewind/event-store';
import type { LogBatch, SubscriptionHub } from '@rewind/event-store/subscriptions';
import { sessionIdFromStream, sessionStreamId, sessionStreamPrefix } from '@rewind/engine';
import { EVENT_STORE, SUBSCRIPTION_HUB } from '../infrastructure/tokens';

/** What a live stream says about one committed event: where and what, never its data (which may be sensitive). */
export interface LiveChange {
  sessionId: string;
  /** The event's version in its session. */
  version: number;
  type: string;
  occurredAt: string | null;
}

type Listener = (events: readonly StoredEvent[]) => void;

/** Events replayed at most on a resume; an older Last-Event-ID gets a `reset` (reload everything). */
export const RESUME_LIMIT = 1000;

/**
 * Fans the log out to the open live streams: one subscription in the process's hub (poked by
 * every commit, so a change reaches the browsers at once), from the log's end at start-up, and
 * listeners per stream prefix. A stream that resumes reads what it missed from the store.
 */
@Injectable()
export class LiveFeed implements OnApplicationBootstrap, BeforeApplicationShutdown {
  static readonly SUBSCRIPTION = 'live-streams';
  private readonly logger = new Logger('Live');
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly closers = new Set<() => void>();
  private position = -1;

  constructor(
    @Inject(EVENT_STORE) readonly store: EventStore,
    @Inject(SUBSCRIPTION_HUB) private readonly hub: SubscriptionHub,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.position = await this.store.lastPosition();
    const loop = this.hub.add({
      name: LiveFeed.SUBSCRIPTION,
      // A live view needs no history at start-up: the checkpoint is this process's, in memory.
      checkpoint: { kind: 'in-handler', read: async () => this.position },
      exclusivity: { kind: 'none' },
      handle: async (batch: LogBatch) => {
        this.dispatch(batch.events);
        const last = batch.events[batch.events.length - 1];
        if (last) this.position = last.globalPosition;
        return this.position;
      },
    });
    loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.endStreams();
    await this.hub.remove(LiveFeed.SUBSCRIPTION);
  }

  /** Ends every open stream (clients reconnect with Last-Event-ID): at shutdown, or to shed connections. */
  endStreams(): void {
    for (const close of [...this.closers]) close();
  }

  /** Ends this stream when the application shuts down (an open response would hold the server). */
  onShutdown(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  /** Calls `listener` with each batch of events whose stream id starts with `prefix`, until the returned function is called. */
  listen(prefix: string, listener: Listener): () => void {
    let set = this.listeners.get(prefix);
    if (!set) this.listeners.set(prefix, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(prefix);
    };
  }

  async sessionExists(tenantId: string, sessionId: string): Promise<boolean> {
    return (await this.store.streamVersion(sessionStreamId(tenantId, sessionId))) > 0;
  }

  /** The session's events after `version` (at most RESUME_LIMIT + 1, to tell a gap too long to replay). */
  missedInSession(tenantId: string, sessionId: string, version: number): Promise<StoredEvent[]> {
    return this.store.readStream(sessionStreamId(tenantId, sessionId), { fromVersion: version + 1, limit: RESUME_LIMIT + 1 });
  }

  /** Where the tenant's event `version` of `sessionId` sits in the log, or null: no such event of this tenant. */
  async positionOf(tenantId: string, sessionId: string, version: number): Promise<number | null> {
    const [event] = await this.store.readStream(sessionStreamId(tenantId, sessionId), { fromVersion: version, limit: 1 });
    return event && event.streamVersion === version ? event.globalPosition : null;
  }

  /** The tenant's events after global `position`, among the next RESUME_LIMIT of the log, and whether the log went further. */
  async missedInTenant(tenantId: string, position: number): Promise<{ events: StoredEvent[]; complete: boolean }> {
    const read = await this.store.readAll({ after: position, limit: RESUME_LIMIT });
    const prefix = sessionStreamPrefix(tenantId);
    return { events: read.filter((e) => e.streamId.startsWith(prefix)), complete: read.length < RESUME_LIMIT };
  }

  private dispatch(events: readonly StoredEvent[]): void {
    if (this.listeners.size === 0) return;
    for (const [prefix, set] of this.listeners) {
      const mine = events.filter((e) => e.streamId.startsWith(prefix));
      if (mine.length === 0) continue;
      for (const listener of set) {
        try {
          listener(mine);
        } catch (error) {
          this.logger.warn(`A live stream failed to take ${mine.length} event(s): ${String(error)}`);
        }
      }
    }
  }
}

/**
 * The tenant stream's event id: the event's session and version (`trip:12`), never its
 * position in the whole log, which would tell how much every other tenant writes.
 */
export function tenantCursorOf(event: StoredEvent): string {
  return `${sessionIdFromStream(event.streamId)}:${event.streamVersion}`;
}

/** A tenant stream id this API gave (`<session id>:<version>`), or null. */
export function parseTenantCursor(value: string): { sessionId: string; version: number } | null {
  const match = /^([A-Za-z0-9_.-]{1,128}):(\d{1,15})$/.exec(value.trim());
  return match ? { sessionId: match[1]!, version: Number(match[2]) } : null;
}

export function toLiveChange(event: StoredEvent): LiveChange {
  const occurredAt = (event.metadata as { occurredAt?: unknown }).occurredAt;
  return {
    sessionId: sessionIdFromStream(event.streamId),
    version: event.streamVersion,
    type: event.type,
    occurredAt: typeof occurredAt === 'string' ? occurredAt : null,
  };
}
