import type { ChannelVersions, CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { JsonValue } from '@rewind/domain';
import type { EncodedChannel, EncodedValue, MaterializedList } from './channel-encoding';

/** Context variables the saver writes into a Rewind session; each is a step of the session's timeline. */
export const CHECKPOINT_VARIABLE = 'langgraph.checkpoint';
export const WRITES_VARIABLE = 'langgraph.writes';
export const DELETED_VARIABLE = 'langgraph.deleted';
/** The key of a thread's session metadata that keeps the (escaped) thread id: `{ langgraph: { thread } }`. */
export const THREAD_METADATA = 'langgraph';

/** What one `put` records: the checkpoint without the channel values it shares with its parent. */
export interface CheckpointRecord {
  ns: string;
  id: string;
  parent: string | null;
  v: number;
  ts: string;
  versions: ChannelVersions;
  seen: Record<string, ChannelVersions>;
  metadata: EncodedValue;
  /** Channels whose value changed here. */
  values: Record<string, EncodedChannel>;
  /** For each other channel, the checkpoint (same namespace) whose `values` hold its value. */
  sources: Record<string, string>;
}

export interface WritesRecord {
  ns: string;
  checkpoint: string;
  task: string;
  path: string;
  writes: [idx: number, channel: string, value: EncodedValue][];
}

export interface StoredWrite {
  task: string;
  idx: number;
  path: string;
  channel: string;
  value: EncodedValue;
}

export const key = (ns: string, id: string): string => `${ns}\u0000${id}`;

/**
 * Everything the saver knows about one thread, read from its session stream and kept up to
 * date by reading only the events after the last one seen.
 */
export class ThreadIndex {
  streamVersion = 0;
  /** The escaped thread id the session's metadata keeps (sessions the saver started). */
  thread: string | undefined;
  readonly checkpoints = new Map<string, CheckpointRecord & { streamVersion: number }>();
  readonly writes = new Map<string, Map<string, StoredWrite>>();
  /** Serialized lists by checkpoint, built on demand: what new lists are compared with. */
  readonly lists = new Map<string, MaterializedList>();
  /** The session's timeline: each step's parent (0 for the root) and the head, moved by steps and head moves. */
  private readonly parents = new Map<number, number>();
  private head = 0;
  private path: { head: number; steps: number; versions: Set<number> } | undefined;

  /** A step event (a timeline node) at `version`, after `parent`: the new head. */
  step(version: number, parent: number | null): void {
    this.parents.set(version, parent ?? 0);
    this.head = version;
  }

  /** A rollback, undo, redo or jump completed: the head is `version` again. */
  moveHead(version: number): void {
    this.head = version;
  }

  /** The head, for a step recorded without reading the stream (its parent is the head). */
  get headVersion(): number {
    return this.head;
  }

  /** Whether the step at `version` is on the current timeline path (false once a rollback left it behind). */
  onPath(version: number): boolean {
    if (this.path?.head !== this.head || this.path.steps !== this.parents.size) {
      const versions = new Set<number>();
      for (let v = this.head; v > 0; v = this.parents.get(v) ?? 0) versions.add(v);
      this.path = { head: this.head, steps: this.parents.size, versions };
    }
    return this.path.versions.has(version);
  }

  apply(streamVersion: number, name: string, value: JsonValue): void {
    this.streamVersion = Math.max(this.streamVersion, streamVersion);
    if (name.startsWith(DELETED_VARIABLE)) {
      this.checkpoints.clear();
      this.writes.clear();
      this.lists.clear();
    } else if (name.startsWith(CHECKPOINT_VARIABLE)) {
      const record = value as unknown as CheckpointRecord;
      this.checkpoints.set(key(record.ns, record.id), { ...record, streamVersion });
    } else if (name.startsWith(WRITES_VARIABLE)) {
      const record = value as unknown as WritesRecord;
      const at = key(record.ns, record.checkpoint);
      const stored = this.writes.get(at) ?? new Map<string, StoredWrite>();
      for (const [idx, channel, encoded] of record.writes) {
        const id = `${record.task},${idx}`;
        // A regular write is kept once (a retried task does not duplicate it); special ones (negative idx) are replaced.
        if (idx >= 0 && stored.has(id)) continue;
        stored.set(id, { task: record.task, idx, path: record.path, channel, value: encoded });
      }
      this.writes.set(at, stored);
    }
  }

  /** Checkpoint ids of one namespace (or all), newest first: uuid6 ids sort by time. */
  ids(ns: string | undefined): (CheckpointRecord & { streamVersion: number })[] {
    return [...this.checkpoints.values()].filter((c) => ns === undefined || c.ns === ns).sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }
}

export type { CheckpointMetadata };
