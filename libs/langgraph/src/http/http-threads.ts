import type { JsonObject, JsonValue } from '@rewind/domain';
import { isRewindError, RewindError, type RewindClient } from '@rewind/client';
import type { RewindThreads, ThreadEvent } from '../rewind-threads';

/** Largest pages the API serves (GET /v1/sessions/:id/events, GET /v1/sessions). */
const EVENT_PAGE = 1000;
const SESSION_PAGE = 500;

/** The saver's transport over the HTTP API: every read and write is a documented route, through `@rewind/client`. */
export class HttpThreads implements RewindThreads {
  constructor(readonly client: RewindClient) {}

  async ensureThread(sessionId: string, metadata: JsonObject): Promise<void> {
    await this.client.startSession({ sessionId, title: 'LangGraph thread', metadata }).catch((error: unknown) => {
      if (!isRewindError(error, 'session_exists')) throw error;
    });
  }

  async events(sessionId: string, fromVersion: number): Promise<ThreadEvent[]> {
    const events: ThreadEvent[] = [];
    for (let from: number | null = fromVersion; from !== null; ) {
      try {
        const page = await this.client.listEvents(sessionId, { from, limit: EVENT_PAGE });
        events.push(...page.events);
        from = page.nextFrom;
      } catch (error) {
        if (isRewindError(error, 'session_not_found')) return events;
        throw error;
      }
    }
    return events;
  }

  async setVariable(sessionId: string, name: string, value: JsonValue): Promise<number> {
    return (await this.client.setContextVariable(sessionId, name, value)).version;
  }

  async recordThought(sessionId: string, content: string, steps: string[]): Promise<number> {
    return (await this.client.recordThought(sessionId, { content, steps })).version;
  }

  async sessionIds(): Promise<string[]> {
    const ids: string[] = [];
    for (let cursor: string | undefined; ; ) {
      const { data, error, response } = await this.client.api.GET('/v1/sessions', {
        params: { query: { sort: 'sessionId', limit: SESSION_PAGE, ...(cursor ? { cursor } : {}) } },
      });
      if (!data) throw RewindError.fromResponse(response.status, error);
      ids.push(...data.items.map((s) => s.sessionId));
      if (data.nextCursor === null) return ids;
      cursor = data.nextCursor;
    }
  }
}
