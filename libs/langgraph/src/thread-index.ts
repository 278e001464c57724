import type { ChannelVersions, CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { JsonValue } from '@rewind/domain';
import type { EncodedChannel, EncodedValue, MaterializedList } from './channel-encoding';

/** Context variables the saver writes into a Rewind session; each is a step of the session's timeline. */
export const CHECKPOINT_VARIABLE = 'langgraph.checkpoint';
export const WRITES_VARIABLE = 'langgraph.writes';
export const DELETED_VARIABLE = 'langgraph.deleted';

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
  readonly checkpoints = new Map<string, CheckpointRecord & { streamVersion: number }>();
  readonly writes = new Map<string, Map<string, StoredWrite>>();
  /** Serialized lists by checkpoint, built on demand: what new lists are compared with. */
  readonly lists = new Map<string, MaterializedList>();

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
