import type { JsonObject, JsonValue } from '@rewind/domain';

/** One event of a thread's session, as the saver reads it. */
export interface ThreadEvent {
  streamVersion: number;
  /** The timeline node before this one (step events); null for records about the timeline. */
  parentVersion: number | null;
  type: string;
  data: unknown;
}

/**
 * What the checkpoint saver needs of Rewind, one implementation per transport: the
 * in-process engine (`@rewind/langgraph`) or the HTTP API through `@rewind/client`
 * (`@rewind/langgraph/http`). A thread is a session, named by `sessionIdOfThread(threadId)`.
 */
export interface RewindThreads {
  /** Starts the thread's session unless it already exists, with this metadata. */
  ensureThread(sessionId: string, metadata: JsonObject): Promise<void>;
  /** The session's events from `fromVersion` on, oldest first; none when the session does not exist. */
  events(sessionId: string, fromVersion: number): Promise<ThreadEvent[]>;
  /** Records a context variable as one step; returns the stream version after the write. */
  setVariable(sessionId: string, name: string, value: JsonValue): Promise<number>;
  /** Records the agent's reasoning as one step (kept out of the LLM context); returns the stream version after the write. */
  recordThought(sessionId: string, content: string, steps: string[]): Promise<number>;
  /** Every session id of the tenant (those of threads among them). */
  sessionIds(): Promise<string[]>;
}
