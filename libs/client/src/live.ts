import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { RewindError } from './rewind-error';

/** One committed event, as a live stream tells it: where and what, not its data. */
export interface LiveChange {
  sessionId: string;
  /** Its version in the session. */
  version: number;
  /** @deprecated no longer sent: a position in the whole log told how much every tenant writes. */
  position?: number;
  type: string;
  occurredAt: string | null;
}

export type LiveEvent =
  /** The stream is open; changes after this session version (a session's stream; nothing on the tenant's) follow. */
  | { kind: 'ready'; version?: number; /** @deprecated no longer sent */ position?: number }
  /** A resume was too far behind to replay, or its id was not this stream's: reload what you show, changes after this point follow. */
  | { kind: 'reset'; version?: number; /** @deprecated no longer sent */ position?: number }
  | { kind: 'change'; id: string; change: LiveChange };

export interface SubscribeOptions {
  /** e.g. http://localhost:3000 */
  baseUrl: string;
  apiKey: string;
  /** A session's changes; without it, every session of the key's tenant. */
  sessionId?: string;
  /** Resume after this event id (a change's `id`): what was missed comes first. */
  lastEventId?: string;
  /** Ends the subscription (the iterator then returns). */
  signal?: AbortSignal;
  /** Pause before reconnecting after the connection dropped (default 1 s). Refusals (4xx) are thrown, not retried. */
  reconnectDelayMs?: number;
  fetch?: typeof fetch;
}

/**
 * Follows a live stream (`GET /v1/sessions/{id}/stream` or `GET /v1/stream`) as an async
 * iterator, over fetch streaming so the key travels in the Authorization header. A dropped
 * connection is reopened with Last-Event-ID, so no change is missed or repeated.
 */
export async function* subscribe(options: SubscribeOptions): AsyncGenerator<LiveEvent, void, undefined> {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const url = options.sessionId ? `${base}/v1/sessions/${encodeURIComponent(options.sessionId)}/stream` : `${base}/v1/stream`;
  let lastEventId = options.lastEventId;
  while (!options.signal?.aborted) {
    let response: Response;
    try {
      response = await doFetch(url, {
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch {
      if (options.signal?.aborted) return;
      await pause(options.reconnectDelayMs ?? 1000, options.signal);
      continue;
    }
    if (!response.ok) {
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the error says so with the text
      }
      if (response.status >= 400 && response.status < 500) throw RewindError.fromResponse(response.status, body);
      await pause(options.reconnectDelayMs ?? 1000, options.signal);
      continue;
    }
    const queue: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (message) => queue.push(message) });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
        for (const message of queue.splice(0)) {
          const event = toLiveEvent(message);
          if (!event) continue;
          if (event.kind === 'change') lastEventId = event.id;
          yield event;
        }
      }
    } catch {
      if (options.signal?.aborted) return;
    } finally {
      reader.releaseLock();
    }
    await pause(options.reconnectDelayMs ?? 1000, options.signal);
  }
}

function toLiveEvent(message: EventSourceMessage): LiveEvent | null {
  const data = message.data ? (JSON.parse(message.data) as Record<string, unknown>) : {};
  switch (message.event) {
    case 'ready':
    case 'reset':
      return { kind: message.event, ...(data as { version?: number; position?: number }) };
    case 'change':
      return { kind: 'change', id: message.id ?? '', change: data as unknown as LiveChange };
    default:
      return null; // ping, and kinds a newer server may add
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
