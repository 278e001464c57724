import type { RunnableConfig } from '@langchain/core/runnables';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { RewindError, type RewindClient, type Rollback, type SessionState, type WaitOptions } from '@rewind/client';
import { ThreadCheckpointSaver, type ThreadSaverOptions } from '../checkpoint-saver';
import { HttpThreads } from './http-threads';

/**
 * A LangGraph checkpoint saver on a Rewind server, over its HTTP API (`@rewind/client`):
 * the same mapping as the in-process `RewindCheckpointSaver`, so a thread written by one
 * reads the same through the other. Tool calls recorded in the thread's session (with
 * `client.startToolCall(await saver.thread(config), …)`) are compensated by `rollbackTo`.
 */
export class RewindHttpCheckpointSaver extends ThreadCheckpointSaver {
  constructor(
    readonly client: RewindClient,
    serde?: SerializerProtocol,
    options?: ThreadSaverOptions,
  ) {
    super(new HttpThreads(client), serde, options);
  }

  /** The session id of a thread (`sessionIdOfThread(thread_id)`), started if it does not exist yet: record tool calls in it. */
  thread(config: RunnableConfig | string): Promise<string> {
    return this.openThread(config);
  }

  /**
   * Rolls the thread back to a checkpoint through Rewind: tool calls recorded after it are
   * compensated (newest first, by the server's rollback saga), and the checkpoint becomes the
   * thread's latest. Waits for the compensations; a rollback that needs attention is thrown
   * as a RewindError `rollback_needs_attention` carrying the rollback's id.
   */
  async rollbackTo(config: RunnableConfig, options: { acknowledgeIrreversible?: boolean } & WaitOptions = {}): Promise<SessionState> {
    const { sessionId, streamVersion } = await this.rollbackTarget(config);
    const { acknowledgeIrreversible, ...wait } = options;
    const moved = await this.client.rollback(sessionId, { toVersion: streamVersion, ...(acknowledgeIrreversible ? { acknowledgeIrreversible } : {}) });
    if (moved.rollbackId) {
      const rollback: Rollback = await this.client.waitForRollback(moved.rollbackId, wait);
      if (rollback.status !== 'completed') {
        throw new RewindError(
          409,
          'rollback_needs_attention',
          `Rollback ${rollback.rollbackId} of session "${sessionId}" could not compensate every tool call: see GET /v1/rollbacks/${rollback.rollbackId}, then retry or resolve its failed effects.`,
        );
      }
    }
    return this.client.getSession(sessionId);
  }
}
