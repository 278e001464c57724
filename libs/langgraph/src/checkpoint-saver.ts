import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  compareWritesSortKeys,
  getCheckpointId,
  maxChannelVersion,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import { isStepEvent, type JsonValue } from '@rewind/domain';
import { decodeValue, encodeChannel, encodeValue, EncodingMemo, type EncodedChannel, type EncodedValue, type MaterializedList } from './channel-encoding';
import {
  CHECKPOINT_VARIABLE,
  DELETED_VARIABLE,
  key,
  THREAD_METADATA,
  ThreadIndex,
  WRITES_VARIABLE,
  type CheckpointRecord,
  type StoredWrite,
  type WritesRecord,
} from './thread-index';
import type { RewindThreads } from './rewind-threads';
import { escapeThreadId, sessionIdOfThread, threadIdOfSession, unescapeThreadId } from './thread-id';
import { DEFAULT_THOUGHTS_CHANNEL, reasoningOf } from './thoughts';

export interface ThreadSaverOptions {
  /**
   * The list channel whose new AI messages' reasoning is recorded as Rewind thoughts (a step
   * each, before the checkpoint that holds the message; never part of the LLM context).
   * Default "messages"; null records none.
   */
  thoughtsChannel?: string | null;
}

type IndexedCheckpoint = CheckpointRecord & { streamVersion: number };

/**
 * The metadata key that marks a checkpoint a Rewind rollback (or undo) left behind:
 * `metadata.rewind.rolledBack === true`. Such checkpoints stay listed, after those of the
 * current timeline path; a redo puts them back on it (and the mark goes).
 */
export const ROLLED_BACK_METADATA = 'rewind';

export function configurable(config: RunnableConfig, field: string): string | undefined {
  const value = (config.configurable as Record<string, unknown> | undefined)?.[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new Error(`The RunnableConfig's configurable.${field} must be a string (got ${typeof value}): Rewind keys threads and checkpoints by string ids.`);
  }
  return value;
}

/** The thread id a config names (any non-empty string: `sessionIdOfThread` maps it onto a session id). */
export function threadOf(config: RunnableConfig, action: string): string {
  const threadId = configurable(config, 'thread_id');
  if (threadId === undefined) {
    throw new Error(
      `Cannot ${action}: the RunnableConfig has no configurable.thread_id. Pass one, e.g. graph.invoke(input, { configurable: { thread_id: "my-thread" } }); each thread is a Rewind session.`,
    );
  }
  return nonEmpty(threadId, action);
}

/** An empty thread id is refused, as LangGraph's MemorySaver refuses it (never read as "no thread"). */
function nonEmpty(threadId: string, action: string): string {
  if (threadId === '') throw new Error(`Cannot ${action}: configurable.thread_id is the empty string; name the thread with at least one character.`);
  return threadId;
}

/**
 * The LangGraph ↔ Rewind mapping, whatever carries it (the in-process engine or the HTTP
 * API): each thread is a Rewind session (its id mapped by `sessionIdOfThread`, so any string
 * is a thread id), each checkpoint and each task's pending writes one
 * step of its timeline (a context variable under `langgraph.*`). Checkpoints keep only what
 * changed (a list channel only what was appended), so a thread's storage grows with its
 * length, not its square.
 */
export abstract class ThreadCheckpointSaver extends BaseCheckpointSaver {
  private readonly indexes = new Map<string, ThreadIndex>();
  private readonly memo = new EncodingMemo();
  /** List items already deserialized, by their stored form (shared by every version that kept them). */
  private readonly decoded = new WeakMap<EncodedValue, unknown>();

  private readonly thoughtsChannel: string | null;

  constructor(
    protected readonly threads: RewindThreads,
    serde?: SerializerProtocol,
    options: ThreadSaverOptions = {},
  ) {
    super(serde);
    this.thoughtsChannel = options.thoughtsChannel === undefined ? DEFAULT_THOUGHTS_CHANNEL : options.thoughtsChannel;
  }

  /** Starts the thread's session unless it exists; returns the session id. */
  protected async openThread(config: RunnableConfig | string): Promise<string> {
    const threadId = typeof config === 'string' ? nonEmpty(config, 'open the thread') : threadOf(config, 'open the thread');
    const sessionId = sessionIdOfThread(threadId);
    if ((await this.index(sessionId)).streamVersion === 0) await this.startThread(sessionId, threadId);
    return sessionId;
  }

  /** The session and stream version of the checkpoint a config names: where a Rewind rollback goes. */
  protected async rollbackTarget(config: RunnableConfig): Promise<{ sessionId: string; streamVersion: number }> {
    const threadId = threadOf(config, 'roll back');
    const sessionId = sessionIdOfThread(threadId);
    const checkpointId = getCheckpointId(config);
    const target = checkpointId ? (await this.index(sessionId)).checkpoints.get(key(configurable(config, 'checkpoint_ns') ?? '', checkpointId)) : undefined;
    if (!target)
      throw new Error(`Cannot roll back thread "${threadId}": it has no checkpoint "${checkpointId ?? ''}". Pass the config of one of its checkpoints.`);
    return { sessionId, streamVersion: target.streamVersion };
  }

  /** Starts a thread's session, keeping the thread id in its metadata (where `list` finds a hashed one's). */
  private startThread(sessionId: string, threadId: string): Promise<void> {
    return this.threads.ensureThread(sessionId, { [THREAD_METADATA]: { thread: escapeThreadId(threadId) } });
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = configurable(config, 'thread_id');
    if (threadId === undefined) return undefined; // as MemorySaver: no thread, no checkpoint
    const sessionId = sessionIdOfThread(nonEmpty(threadId, 'read a checkpoint'));
    const ns = configurable(config, 'checkpoint_ns') ?? '';
    const index = await this.index(sessionId);
    const checkpointId = getCheckpointId(config) || this.latest(ns, index);
    const record = checkpointId ? index.checkpoints.get(key(ns, checkpointId)) : undefined;
    return record ? this.tuple(threadId, index, record) : undefined;
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const threadId = configurable(config, 'thread_id');
    const ns = configurable(config, 'checkpoint_ns');
    const only = configurable(config, 'checkpoint_id');
    const before = options.before ? configurable(options.before, 'checkpoint_id') : undefined;
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    const sessions = threadId !== undefined ? [sessionIdOfThread(nonEmpty(threadId, 'list checkpoints'))] : await this.threads.sessionIds();
    for (const sessionId of sessions) {
      const index = await this.index(sessionId);
      const thread = threadId ?? this.threadOfSession(sessionId, index);
      if (thread === undefined) continue; // not a thread's session
      // The current timeline path first (its newest checkpoint is the thread's state), then what a rollback left behind.
      const records = index.ids(ns);
      const current = records.filter((r) => index.onPath(r.streamVersion));
      for (const record of [...current, ...records.filter((r) => !index.onPath(r.streamVersion))]) {
        if (remaining <= 0) return;
        if (only && record.id !== only) continue;
        if (before && record.id >= before) continue;
        const metadata = (await decodeValue(this.serde, record.metadata)) as Record<string, unknown>;
        if (options.filter && !Object.entries(options.filter).every(([k, v]) => metadata[k] === v)) continue;
        remaining--;
        yield await this.tuple(thread, index, record, metadata);
      }
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = threadOf(config, 'save a checkpoint');
    const sessionId = sessionIdOfThread(threadId);
    const ns = configurable(config, 'checkpoint_ns') ?? '';
    const parentId = configurable(config, 'checkpoint_id') ?? null;
    const index = await this.indexForWrite(sessionId, threadId, parentId ? key(ns, parentId) : undefined);
    const parent = parentId ? index.checkpoints.get(key(ns, parentId)) : undefined;
    const values: Record<string, EncodedChannel> = {};
    const sources: Record<string, string> = {};
    const lists = new Map<string, MaterializedList>();
    for (const [channel, value] of Object.entries(checkpoint.channel_values)) {
      if (!(channel in newVersions)) {
        // Unchanged (like every saver, only what `newVersions` names is written): point at where the parent found it.
        const inherited = parent && parent.versions[channel] === checkpoint.channel_versions[channel] ? this.sourceOf(parent, channel) : null;
        if (inherited) sources[channel] = inherited;
        continue;
      }
      const previousSource = parent ? this.sourceOf(parent, channel) : null;
      const previous = previousSource && Array.isArray(value) ? await this.listAt(index, ns, previousSource, channel) : null;
      const encoded = await encodeChannel(this.serde, this.memo, value, previous && previousSource ? { version: previousSource, list: previous } : null);
      values[channel] = encoded.channel;
      if (encoded.list) lists.set(channel, encoded.list);
      if (channel === this.thoughtsChannel && Array.isArray(value) && 'list' in encoded.channel) {
        // Only what this checkpoint appended: the messages kept from the parent were seen by an earlier put.
        for (const message of value.slice(encoded.channel.list.keep)) {
          const reasoning = reasoningOf(message);
          if (reasoning) await this.recordThought(sessionId, index, reasoning.content, reasoning.steps);
        }
      }
    }
    const record: CheckpointRecord = {
      ns,
      id: checkpoint.id,
      parent: parentId,
      v: checkpoint.v,
      ts: checkpoint.ts,
      versions: checkpoint.channel_versions,
      seen: checkpoint.versions_seen,
      metadata: await encodeValue(this.serde, metadata),
      values,
      sources,
    };
    await this.record(sessionId, index, `${CHECKPOINT_VARIABLE}/${ns}`, record as unknown as JsonValue);
    for (const [channel, list] of lists) index.lists.set(`${key(ns, checkpoint.id)}\u0000${channel}`, list);
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = threadOf(config, 'save pending writes');
    const checkpointId = configurable(config, 'checkpoint_id');
    if (!checkpointId) throw new Error('Cannot save pending writes: the RunnableConfig has no configurable.checkpoint_id (the checkpoint they belong to).');
    const ns = configurable(config, 'checkpoint_ns') ?? '';
    const record: WritesRecord = {
      ns,
      checkpoint: checkpointId,
      task: taskId,
      path: taskPath ?? '',
      writes: await Promise.all(
        writes.map(
          async ([channel, value], idx) => [WRITES_IDX_MAP[channel] ?? idx, channel, await encodeValue(this.serde, value)] as WritesRecord['writes'][number],
        ),
      ),
    };
    const sessionId = sessionIdOfThread(threadId);
    await this.record(sessionId, await this.indexForWrite(sessionId, threadId), `${WRITES_VARIABLE}/${ns}`, record as unknown as JsonValue);
  }

  /**
   * Hides the thread's checkpoints from LangGraph. Rewind never deletes events (the audit log
   * is append-only): the thread's history stays readable through Rewind.
   */
  async deleteThread(threadId: string): Promise<void> {
    const sessionId = sessionIdOfThread(nonEmpty(threadId, 'delete a thread'));
    const index = await this.index(sessionId);
    if (index.streamVersion === 0) return;
    await this.record(sessionId, index, DELETED_VARIABLE, new Date().toISOString());
  }

  /** The thread id of a session: from its id, or from its metadata when the id is a hash; undefined for other sessions. */
  private threadOfSession(sessionId: string, index: ThreadIndex): string | undefined {
    const fromId = threadIdOfSession(sessionId);
    if (fromId !== undefined) return fromId;
    const kept = index.thread === undefined ? undefined : unescapeThreadId(index.thread);
    return kept !== undefined && sessionIdOfThread(kept) === sessionId ? kept : undefined;
  }

  /**
   * The thread's index before a write, its session started if new. The cached index is used
   * as it is when it already knows the parent checkpoint (records never change once written):
   * a write answers with its stream version, and `record` reads the stream again whenever
   * another writer came in between. One request less per `put` and `putWrites` over HTTP.
   */
  private async indexForWrite(sessionId: string, threadId: string, parentKey?: string): Promise<ThreadIndex> {
    const cached = this.indexes.get(sessionId);
    if (cached && cached.streamVersion > 0 && (parentKey === undefined || cached.checkpoints.has(parentKey))) return cached;
    const index = await this.index(sessionId);
    if (index.streamVersion === 0) await this.startThread(sessionId, threadId);
    return index;
  }

  /** Records a thought as one step and takes it into the index, like `record`. */
  private async recordThought(sessionId: string, index: ThreadIndex, content: string, steps: string[]): Promise<void> {
    const version = await this.threads.recordThought(sessionId, content, steps);
    if (version === index.streamVersion + 1) {
      index.step(version, index.headVersion);
      index.streamVersion = version;
    } else await this.index(sessionId);
  }

  /** Records one step and takes it into the index (reading the stream instead when another writer came in between). */
  private async record(sessionId: string, index: ThreadIndex, name: string, value: JsonValue): Promise<void> {
    const version = await this.threads.setVariable(sessionId, name, value);
    if (version === index.streamVersion + 1) {
      index.step(version, index.headVersion);
      index.apply(version, name, value);
    } else await this.index(sessionId);
  }

  /** The session's index, brought up to date with the events after the last one read. */
  private async index(sessionId: string): Promise<ThreadIndex> {
    let index = this.indexes.get(sessionId);
    if (!index) this.indexes.set(sessionId, (index = new ThreadIndex()));
    for (const event of await this.threads.events(sessionId, index.streamVersion + 1)) {
      if (event.streamVersion <= index.streamVersion) continue;
      index.streamVersion = event.streamVersion;
      const data = event.data as { name?: string; value?: JsonValue; toVersion?: number; metadata?: { [THREAD_METADATA]?: { thread?: unknown } } };
      if (isStepEvent(event.type)) index.step(event.streamVersion, event.parentVersion);
      else if (event.type === 'RollbackCompleted' && data.toVersion !== undefined) index.moveHead(data.toVersion);
      if (event.type === 'ContextVariableSet' && data.name?.startsWith('langgraph.')) index.apply(event.streamVersion, data.name, data.value ?? null);
      if (event.type === 'SessionStarted' && typeof data.metadata?.[THREAD_METADATA]?.thread === 'string') index.thread = data.metadata[THREAD_METADATA].thread;
    }
    return index;
  }

  /** The latest checkpoint on the session's current timeline path (so a Rewind rollback moves it). */
  private latest(ns: string, index: ThreadIndex): string | undefined {
    let latest: IndexedCheckpoint | undefined;
    for (const record of index.checkpoints.values()) {
      if (record.ns === ns && index.onPath(record.streamVersion) && (!latest || record.streamVersion > latest.streamVersion)) latest = record;
    }
    return latest?.id;
  }

  private sourceOf(record: CheckpointRecord, channel: string): string | null {
    if (channel in record.values) return record.id;
    return record.sources[channel] ?? null;
  }

  /** The serialized list a channel held at a checkpoint, following appended parts back to the first. */
  private async listAt(index: ThreadIndex, ns: string, checkpointId: string, channel: string): Promise<MaterializedList | null> {
    const cacheKey = `${key(ns, checkpointId)}\u0000${channel}`;
    const cached = index.lists.get(cacheKey);
    if (cached) return cached;
    const stored = index.checkpoints.get(key(ns, checkpointId))?.values[channel];
    if (!stored || !('list' in stored)) return null;
    const base = stored.list.base ? await this.listAt(index, ns, stored.list.base, channel) : null;
    const items = [...(base?.items.slice(0, stored.list.keep) ?? []), ...stored.list.items];
    const list = { items, keys: items.map((item) => JSON.stringify(item)) };
    index.lists.set(cacheKey, list);
    return list;
  }

  private async channelValue(index: ThreadIndex, ns: string, source: string, channel: string): Promise<unknown> {
    const stored = index.checkpoints.get(key(ns, source))?.values[channel];
    if (!stored) return undefined;
    if ('whole' in stored) return decodeValue(this.serde, stored.whole);
    const list = (await this.listAt(index, ns, source, channel))!;
    // Items unchanged since an earlier read are not deserialized again: reviving LangChain
    // messages is what a long thread's reads would otherwise spend their time on.
    return Promise.all(
      list.items.map(async (item, i) => {
        if (this.decoded.has(item)) return this.decoded.get(item);
        const value = await decodeValue(this.serde, item);
        this.decoded.set(item, value);
        this.memo.remember(value, item, list.keys[i]);
        return value;
      }),
    );
  }

  /** A checkpoint's pending writes, in LangGraph's order (task path, task id, index). */
  private writesOf(index: ThreadIndex, ns: string, checkpointId: string): StoredWrite[] {
    return [...(index.writes.get(key(ns, checkpointId))?.values() ?? [])].sort((a, b) =>
      compareWritesSortKeys(writesSortKey(a.path, a.task, a.idx), writesSortKey(b.path, b.task, b.idx)),
    );
  }

  /**
   * Checkpoints of the format before v4 kept the sends of the step before them as their
   * parent's pending writes: read them into the `__pregel_tasks` channel, as LangGraph's own
   * savers do (MemorySaver, PostgresSaver, SqliteSaver), so a thread saved then resumes.
   */
  private async migratePendingSends(checkpoint: Checkpoint, index: ThreadIndex, ns: string, parentId: string): Promise<void> {
    const sends = this.writesOf(index, ns, parentId).filter((w) => w.channel === TASKS);
    checkpoint.channel_values[TASKS] = await Promise.all(sends.map((w) => decodeValue(this.serde, w.value)));
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  private async tuple(threadId: string, index: ThreadIndex, record: IndexedCheckpoint, metadata?: Record<string, unknown>): Promise<CheckpointTuple> {
    const channelValues: Record<string, unknown> = {};
    for (const channel of new Set([...Object.keys(record.values), ...Object.keys(record.sources)])) {
      const source = this.sourceOf(record, channel);
      if (source) channelValues[channel] = await this.channelValue(index, record.ns, source, channel);
    }
    const checkpoint: Checkpoint = {
      v: record.v,
      id: record.id,
      ts: record.ts,
      channel_values: channelValues,
      channel_versions: { ...record.versions },
      versions_seen: structuredClone(record.seen),
    };
    if (record.v < 4 && record.parent) await this.migratePendingSends(checkpoint, index, record.ns, record.parent);
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      this.writesOf(index, record.ns, record.id).map(async (w) => [w.task, w.channel, await decodeValue(this.serde, w.value)] as CheckpointPendingWrite),
    );
    const stored = (metadata ?? (await decodeValue(this.serde, record.metadata))) as CheckpointMetadata;
    return {
      config: { configurable: { thread_id: threadId, checkpoint_ns: record.ns, checkpoint_id: record.id } },
      checkpoint,
      metadata: index.onPath(record.streamVersion) ? stored : ({ ...stored, [ROLLED_BACK_METADATA]: { rolledBack: true } } as CheckpointMetadata),
      pendingWrites,
      ...(record.parent ? { parentConfig: { configurable: { thread_id: threadId, checkpoint_ns: record.ns, checkpoint_id: record.parent } } } : {}),
    };
  }
}
