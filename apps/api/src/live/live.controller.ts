import { Controller, createParamDecorator, Param, Sse, type ExecutionContext, type MessageEvent } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Observable } from 'rxjs';
import { sessionStreamId, sessionStreamPrefix, type Caller } from '@rewind/engine';
import type { StoredEvent } from '@rewind/event-store';
import { CurrentCaller } from '../auth/caller.decorator';
import { ApiError } from '../common/api-error';
import { IdParamPipe } from '../sessions/path-params';
import { LiveFeed, parseTenantCursor, RESUME_LIMIT, tenantCursorOf, toLiveChange } from './live-feed';

/** A comment-free keep-alive: lets clients and proxies tell a quiet stream from a dead one. */
const PING_EVERY_MS = 20_000;

const LAST_EVENT_ID = {
  name: 'Last-Event-ID',
  required: false,
  description: 'Resume after this event id (the `id:` of the last event received): what was missed is sent first.',
};

/**
 * The Last-Event-ID header, when sent. Not `@Headers('last-event-id')`: Swagger documents that as
 * a second, required header parameter beside the optional one @ApiHeader describes.
 */
const LastEventId = createParamDecorator((_: unknown, ctx: ExecutionContext): string | undefined => {
  const value: unknown = ctx.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['last-event-id'];
  return typeof value === 'string' ? value : undefined;
});

const STREAM_DESCRIPTION =
  "Server-sent events (`text/event-stream`): `ready` (a session's stream: data `{version}`, what the stream starts after), then one `change` per committed event " +
  "(data `{sessionId, version, type, occurredAt}`, never the event data; its id: the version on a session's stream, `<session id>:<version>` on the tenant's), " +
  '`reset` when a resume is too far behind or its Last-Event-ID is not one this stream gave (reload everything), ' +
  `and \`ping\` every ${PING_EVERY_MS / 1000} s. Send the key in the Authorization header (read it with fetch streaming: EventSource cannot send headers).`;

/** Live streams of changes as they are committed: one per session (the timeline page), one per tenant (the sessions list). */
@ApiTags('live')
@ApiBearerAuth()
@Controller('v1')
export class LiveController {
  constructor(private readonly feed: LiveFeed) {}

  @Sse('sessions/:id/stream')
  @ApiOperation({ operationId: 'streamSession', summary: "A session's changes as they are committed (server-sent events)", description: STREAM_DESCRIPTION })
  @ApiHeader(LAST_EVENT_ID)
  async session(@CurrentCaller() caller: Caller, @Param('id', IdParamPipe) id: string, @LastEventId() lastEventId?: string): Promise<Observable<MessageEvent>> {
    const after = parseEventId(lastEventId);
    if (!(await this.feed.sessionExists(caller.tenantId, id))) {
      throw new ApiError(404, 'session_not_found', 'No such session for this tenant.');
    }
    const streamId = sessionStreamId(caller.tenantId, id);
    return this.stream(
      (listener) => this.feed.listen(streamId, (events) => listener(events.filter((e) => e.streamId === streamId))),
      (e) => e.streamVersion,
      async () => {
        if (after === null) return { start: await this.feed.store.streamVersion(streamId), missed: [], complete: true };
        const missed = await this.feed.missedInSession(caller.tenantId, id, after);
        const complete = missed.length <= RESUME_LIMIT;
        return { start: complete ? after : await this.feed.store.streamVersion(streamId), missed: complete ? missed : [], complete };
      },
      'version',
      (e) => String(e.streamVersion),
    );
  }

  @Sse('stream')
  @ApiOperation({
    operationId: 'streamTenant',
    summary: "The tenant's changes, every session, as they are committed (server-sent events)",
    description: STREAM_DESCRIPTION,
  })
  @ApiHeader(LAST_EVENT_ID)
  tenant(@CurrentCaller() caller: Caller, @LastEventId() lastEventId?: string): Observable<MessageEvent> {
    // Ids are `<session id>:<version>`: a position in the whole log would tell how much every tenant writes.
    const after = lastEventId === undefined ? null : parseTenantCursor(lastEventId);
    return this.stream(
      (listener) => this.feed.listen(sessionStreamPrefix(caller.tenantId), listener),
      (e) => e.globalPosition,
      async () => {
        const now = async () => ({ start: await this.feed.store.lastPosition(), missed: [] });
        if (lastEventId === undefined) return { ...(await now()), complete: true };
        const position = after === null ? null : await this.feed.positionOf(caller.tenantId, after.sessionId, after.version);
        if (position === null) return { ...(await now()), complete: false }; // not an id of this stream: reload
        const { events, complete } = await this.feed.missedInTenant(caller.tenantId, position);
        return complete ? { start: position, missed: events, complete } : { ...(await now()), complete };
      },
      null,
      tenantCursorOf,
    );
  }

  /**
   * Listens first and reads what was missed second, holding live events meanwhile: nothing
   * committed in between is lost, and nothing is sent twice (ids only go up).
   */
  private stream(
    listen: (listener: (events: readonly StoredEvent[]) => void) => () => void,
    orderOf: (event: StoredEvent) => number,
    catchUp: () => Promise<{ start: number; missed: StoredEvent[]; complete: boolean }>,
    /** What `ready`/`reset` say the stream starts after (null: nothing, the tenant stream's start is a global position). */
    startName: 'version' | null,
    idOf: (event: StoredEvent) => string,
  ): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      let last = Number.POSITIVE_INFINITY;
      let held: StoredEvent[] | null = [];
      const send = (events: readonly StoredEvent[]) => {
        for (const event of events) {
          const order = orderOf(event);
          if (order <= last) continue;
          last = order;
          subscriber.next({ id: idOf(event), type: 'change', data: toLiveChange(event) });
        }
      };
      const stopListening = listen((events) => (held ? held.push(...events) : send(events)));
      const ping = setInterval(() => subscriber.next({ type: 'ping', data: {} }), PING_EVERY_MS);
      ping.unref();
      const stopOnShutdown = this.feed.onShutdown(() => subscriber.complete());
      catchUp().then(
        ({ start, missed, complete }) => {
          last = start;
          subscriber.next({ type: complete ? 'ready' : 'reset', data: startName ? { [startName]: start } : {} });
          send(missed);
          const pending = held ?? [];
          held = null;
          send(pending);
        },
        (error: unknown) => subscriber.error(error),
      );
      return () => {
        stopListening();
        stopOnShutdown();
        clearInterval(ping);
      };
    });
  }
}

/** A session stream's Last-Event-ID (a version), or null (absent or foreign: start from now). */
function parseEventId(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}
