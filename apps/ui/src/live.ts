import { createParser } from 'eventsource-parser';
import { useEffect, useRef, useState } from 'react';
import { apiKeyStore } from './api/client';

/** How the page follows the server: `live` while a stream is open, `reconnecting` after it dropped. */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

/** Reconnect after this long, doubling up to the cap, while the server is away. */
const RETRY_MS = 1000;
const RETRY_MAX_MS = 10_000;
/** Changes that come in a burst (a batch of steps, a rollback's effects) are answered with one reload. */
const SETTLE_MS = 150;

/**
 * Follows a live stream (`/v1/sessions/:id/stream`, or `/v1/stream` for the tenant) and calls
 * `onChange` after each burst of commits, and after a reconnection that may have missed some.
 * fetch streaming instead of EventSource, so the key stays in the Authorization header; a
 * dropped stream is resumed with Last-Event-ID.
 */
export function useLive(path: string, onChange: () => void): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    const abort = new AbortController();
    let lastEventId: string | null = null;
    let settle: ReturnType<typeof setTimeout> | null = null;
    const changed = () => {
      if (settle) clearTimeout(settle);
      settle = setTimeout(() => latest.current(), SETTLE_MS);
    };
    const follow = async () => {
      let delay = RETRY_MS;
      let opened = false;
      while (!abort.signal.aborted) {
        try {
          const key = apiKeyStore.get();
          const response = await fetch(path, {
            headers: {
              accept: 'text/event-stream',
              ...(key ? { authorization: `Bearer ${key}` } : {}),
              ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
            },
            signal: abort.signal,
          });
          // A refused key or a gone session is said by the page's own reads; the stream waits and tries again.
          if (response.ok && response.body) {
            const parser = createParser({
              onEvent: (event) => {
                if (event.event === 'change') {
                  if (event.id) lastEventId = event.id;
                  changed();
                } else if (event.event === 'ready' || event.event === 'reset') {
                  setStatus('live');
                  delay = RETRY_MS;
                  // What happened while the stream was closed: the page reads again once.
                  if (opened || event.event === 'reset') changed();
                  opened = true;
                }
              },
            });
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              parser.feed(value);
            }
          }
        } catch {
          // dropped or unreachable: retried below
        }
        if (abort.signal.aborted) return;
        setStatus('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    };
    void follow();
    return () => {
      abort.abort();
      if (settle) clearTimeout(settle);
    };
  }, [path]);
  return status;
}
