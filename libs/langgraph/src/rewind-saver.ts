import type { RunnableConfig } from '@langchain/core/runnables';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { JsonObject, JsonValue } from '@rewind/domain';
import { sessionStreamPrefix } from '@rewind/engine';
import type { Rewind, RewindSession, SessionView } from '@rewind/embedded';
import { ThreadCheckpointSaver, type ThreadSaverOptions } from './checkpoint-saver';
import type { RewindThreads, ThreadEvent } from './rewind-threads';

/** The saver's transport in library mode: the engine in this process. */
export class EmbeddedThreads implements RewindThreads {
  constructor(readonly rewind: Rewind) {}

  async ensureThread(sessionId: string, metadata: JsonObject): Promise<void> {
    const caller = { tenantId: this.rewind.tenantId, actor: 'library' };
    await this.rewind.sessions.startSession(caller, { sessionId, title: 'LangGraph thread', metadata }).catch((error: { code?: string }) => {
      if (error.code !== 'session_exists') throw error;
    });
  }

  events(sessionId: string, fromVersion: number): Promise<ThreadEvent[]> {
    return this.rewind.session(sessionId).events(fromVersion);
  }

  setVariable(sessionId: string, name: string, value: JsonValue): Promise<number> {
    return this.rewind.session(sessionId).setVariable(name, value);
  }

  recordThought(sessionId: string, content: string, steps: string[]): Promise<number> {
    return this.rewind.session(sessionId).think(content, steps);
  }

  async sessionIds(): Promise<string[]> {
    const prefix = sessionStreamPrefix(this.rewind.tenantId);
    const ids: string[] = [];
    for (let after: string | undefined; ; ) {
      const page = await this.rewind.store.listStreams({ prefix, limit: 500, ...(after ? { after } : {}) });
      if (page.length === 0) return ids;
      ids.push(...page.map((s) => s.streamId.slice(prefix.length)));
      after = page[page.length - 1]!.streamId;
    }
  }
}

/**
 * A LangGraph checkpoint saver on Rewind in this process (library mode). Tools called
 * through the same session (`saver.session(config).call(...)`) are undone by `rollbackTo`,
 * which also makes the target checkpoint the thread's latest again.
 */
export class RewindCheckpointSaver extends ThreadCheckpointSaver {
  constructor(
    readonly rewind: Rewind,
    serde?: SerializerProtocol,
    options?: ThreadSaverOptions,
  ) {
    super(new EmbeddedThreads(rewind), serde, options);
  }

  /** The Rewind session of a thread (its id is `sessionIdOfThread(thread_id)`), started if it does not exist yet: call tools on it. */
  async session(config: RunnableConfig | string): Promise<RewindSession> {
    return this.rewind.session(await this.openThread(config));
  }

  /**
   * Rolls the thread back to a checkpoint through Rewind: tools called after it are undone
   * (newest first), and the checkpoint becomes the thread's latest.
   */
  async rollbackTo(config: RunnableConfig, options: { acknowledgeIrreversible?: boolean } = {}): Promise<SessionView> {
    const { sessionId, streamVersion } = await this.rollbackTarget(config);
    return this.rewind.session(sessionId).rollbackTo(streamVersion, options);
  }
}
