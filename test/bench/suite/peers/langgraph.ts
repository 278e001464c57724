/**
 * LangGraph's PostgresSaver holding the same conversation the way a LangGraph agent does: one
 * checkpoint per step, whose changed channel is written in full (the `messages` channel holds
 * every LangChain message so far; `memory` the whole map). Restores are `getTuple` (latest, or a
 * past checkpoint by id).
 *
 * Favourable to LangGraph: only `put` is called per step (a real graph also calls `putWrites`
 * for each task's pending writes, and updates several channels per super-step).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { uuid6, type ChannelVersions, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { JsonValue } from '@rewind/domain';
import type { TestDatabase } from '../../../support/postgres';
import type { SystemAdapter } from '../adapter';
import { stepUpdate, type ChatMessage } from '../conversation';
import { createBenchDatabase, rowSizes, tableSizes } from '../databases';

export const LANGGRAPH_TABLES = ['public.checkpoints', 'public.checkpoint_blobs', 'public.checkpoint_writes'];

interface Thread {
  config: RunnableConfig;
  messages: BaseMessage[];
  memory: Record<string, JsonValue>;
  versions: { messages: number; memory: number };
  /** Checkpoint id of each version (index = version - 1). */
  checkpointIds: string[];
  step: number;
}

function toLangChain(message: ChatMessage): BaseMessage {
  switch (message.kind) {
    case 'human':
      return new HumanMessage({ id: message.id, content: message.content });
    case 'ai':
      return new AIMessage({
        id: message.id,
        content: message.content,
        ...(message.toolCalls
          ? { tool_calls: message.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args as Record<string, unknown>, type: 'tool_call' as const })) }
          : {}),
      });
    case 'tool':
      return new ToolMessage({ id: message.id, content: message.content, tool_call_id: message.toolCallId });
  }
}

export class LangGraphAdapter implements SystemAdapter {
  readonly system = 'langgraph' as const;
  readonly store = 'postgres' as const;
  readonly description = 'LangGraph PostgresSaver 1.0.5 (fromConnString: pg Pool, default size 10), one checkpoint per step';
  private readonly threads = new Map<string, Thread>();

  private constructor(
    readonly saver: PostgresSaver,
    private readonly db: TestDatabase,
  ) {}

  static async open(run: string): Promise<LangGraphAdapter> {
    const db = await createBenchDatabase(run, 'langgraph');
    const saver = PostgresSaver.fromConnString(db.url);
    await saver.setup();
    return new LangGraphAdapter(saver, db);
  }

  private thread(sessionId: string): Thread {
    const thread = this.threads.get(sessionId);
    if (!thread) throw new Error(`no thread ${sessionId}`);
    return thread;
  }

  private async put(thread: Thread, changed: ('messages' | 'memory')[]): Promise<void> {
    const newVersions: ChannelVersions = {};
    for (const channel of changed) newVersions[channel] = ++thread.versions[channel];
    const checkpoint: Checkpoint = {
      v: 4,
      id: uuid6(-1),
      ts: new Date().toISOString(),
      channel_values: { messages: thread.messages, memory: thread.memory },
      channel_versions: { ...thread.versions },
      versions_seen: { agent: { ...thread.versions } },
    };
    thread.config = await this.saver.put(
      thread.config,
      checkpoint,
      { source: thread.step < 0 ? 'input' : 'loop', step: thread.step, parents: {} },
      newVersions,
    );
    thread.checkpointIds.push(checkpoint.id);
    thread.step++;
  }

  async startSession(sessionId: string): Promise<void> {
    const thread: Thread = {
      config: { configurable: { thread_id: sessionId, checkpoint_ns: '' } },
      messages: [],
      memory: {},
      versions: { messages: 0, memory: 0 },
      checkpointIds: [],
      step: -1,
    };
    this.threads.set(sessionId, thread);
    await this.put(thread, ['messages', 'memory']);
  }

  async appendStep(sessionId: string, t: number, s: number): Promise<void> {
    const thread = this.thread(sessionId);
    const update = stepUpdate(t, s);
    if ('message' in update) {
      thread.messages = [...thread.messages, toLangChain(update.message)];
      await this.put(thread, ['messages']);
    } else {
      thread.memory = { ...thread.memory, [update.memory[0]]: update.memory[1] };
      await this.put(thread, ['memory']);
    }
  }

  restoreHead(sessionId: string): Promise<unknown> {
    return this.saver.getTuple({ configurable: { thread_id: sessionId, checkpoint_ns: '' } });
  }

  restoreAt(sessionId: string, version: number): Promise<unknown> {
    const id = this.thread(sessionId).checkpointIds[version - 1];
    if (!id) throw new Error(`no checkpoint for version ${version} of ${sessionId}`);
    return this.saver.getTuple({ configurable: { thread_id: sessionId, checkpoint_ns: '', checkpoint_id: id } });
  }

  /** LangGraph has no batch write: a checkpoint per step. */
  async bulkLoad(sessionId: string, turns: number): Promise<number> {
    await this.startSession(sessionId);
    for (let t = 0; t < turns; t++) for (let s = 0; s < 5; s++) await this.appendStep(sessionId, t, s);
    return this.thread(sessionId).checkpointIds.length;
  }

  headVersion(sessionId: string): number {
    return this.thread(sessionId).checkpointIds.length;
  }

  storageBytes(): Promise<Record<string, number>> {
    return tableSizes(this.db.url, LANGGRAPH_TABLES);
  }

  rowBytes(): Promise<Record<string, number>> {
    return rowSizes(this.db.url, LANGGRAPH_TABLES);
  }

  async close(): Promise<void> {
    await this.saver.end();
    await this.db.drop();
  }
}
