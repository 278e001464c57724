import type { JsonValue } from '@rewind/domain';

/** One event of a thread's session, as the saver reads it. */
export interface ThreadEvent {
  streamVersion: number;
  type: string;
  data: unknown;
}

/**
 * What the checkpoint saver needs of Rewind, one implementation per transport: the
 * in-process engine (`@rewind/langgraph`) or the HTTP API through `@rewind/client`
 * (`@rewind/langgraph/http`). A thread is a session named by the thread id.
 */
export interface RewindThreads {
  /** Starts the thread's session unless it already exists. */
  ensureThread(threadId: string): Promise<void>;
  /** The session's events from `fromVersion` on, oldest first; none when the session does not exist. */
  events(threadId: string, fromVersion: number): Promise<ThreadEvent[]>;
  /** A context variable at the session's head (undefined when unset). */
  headVariable(threadId: string, name: string): Promise<JsonValue | undefined>;
  /** Records a context variable as one step; returns the stream version after the write. */
  setVariable(threadId: string, name: string, value: JsonValue): Promise<number>;
  /** Every thread (session) id of the tenant. */
  threadIds(): Promise<string[]>;
}
