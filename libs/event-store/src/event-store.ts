import type { EventMetadata } from '@rewind/domain';
import type { SnapshotRejection } from './audit/snapshot-rejections';

/**
 * The event store port. Every adapter (SQLite, in-memory, PostgreSQL, EventStoreDB)
 * passes the same contract suite (`testing/event-store.contract.ts`).
 */

/** Who and what caused an event: declared once, by the domain, and stored as it is. */
export type EventMetadataRecord = EventMetadata;

/** An event's own part: its type and data. The store keeps both as given; typed by the caller that wrote them. */
export interface EventBody {
  type: string;
  data: unknown;
}

export type NewEvent<E extends EventBody = EventBody> = E & {
  eventId: string;
  /** Timeline predecessor (step events) or null. */
  parentVersion: number | null;
  metadata: EventMetadataRecord;
};

export type StoredEvent<E extends EventBody = EventBody> = NewEvent<E> & {
  streamId: string;
  /** Gapless 1..n within the stream. */
  streamVersion: number;
  /** Increases with commit order across all streams; a reader never sees it go back. */
  globalPosition: number;
};

/** An event as the audit reads it: its columns as stored, texts unparsed, and its link (null: written before links). */
export interface ChainEvent {
  position: number;
  streamId: string;
  version: number;
  eventId: string;
  type: string;
  parentVersion: number | null;
  /** The data's JSON text as stored (ciphertext where a field is encrypted); '' when read without content. */
  data: string;
  /** The metadata's stored text; '' when read without content. */
  metadata: string;
  link: Buffer | null;
}

export interface ReadChainOptions {
  /** Exclusive. */
  after: number;
  /** Inclusive; default: no bound. */
  upTo?: number;
  limit: number;
  /** Only streams whose id starts with this (a tenant's sessions), or only this stream. */
  streamPrefix?: string;
  streamId?: string;
  /** False: data and metadata come back as '' (the digest needs only links). Default true. */
  content?: boolean;
}

/** `no_stream`: the stream must not exist; `any`: no check; a number: the current version must equal it. */
export type ExpectedVersion = number | 'any' | 'no_stream';

/** Claims an idempotency key within a scope (the tenant); the fingerprint identifies the request. */
export interface IdempotencyClaim {
  scope: string;
  key: string;
  fingerprint: string;
}

export interface IdempotencyRecord extends IdempotencyClaim {
  streamId: string;
  firstVersion: number;
  lastVersion: number;
}

export interface AppendOptions {
  expectedVersion: ExpectedVersion;
  idempotency?: IdempotencyClaim;
}

export interface AppendResult {
  streamId: string;
  firstVersion: number;
  lastVersion: number;
  /** True when the idempotency key had already been used: nothing new was written. */
  duplicate: boolean;
}

export interface ReadStreamOptions {
  fromVersion?: number;
  toVersion?: number;
  limit?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events with a greater global position are returned. */
  after: number;
  limit: number;
}

export interface StreamSummary {
  streamId: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface Snapshot<S = unknown> {
  streamId: string;
  version: number;
  reducerVersion: number;
  state: S;
}

/**
 * A piece of a snapshot written once and shared by later snapshots of the same stream
 * (e.g. the sealed part of a long conversation). `id` names its content; `data` is text
 * (JSON) that the store keeps as it is given, compressed or not.
 */
export interface SnapshotSegment {
  id: string;
  data: string;
}

/** What a restore reads: the nearest snapshot at or before a version and the events after it, up to that version. */
export interface SnapshotAndTail {
  snapshot: Snapshot | null;
  /** In version order, from `snapshot.version + 1` (or 1) to the requested version. */
  events: StoredEvent[];
  /** Set when the nearest snapshot's seal did not hold: it was not served, `events` start at version 1. */
  rejected?: { version: number; problem: string };
}

/** Snapshots checked against their seals (`rewind audit verify`). */
export interface SnapshotCheck {
  checked: number;
  rejected: SnapshotRejection[];
}

export interface EventStore {
  /** Appends atomically: all events or none. Throws ConcurrencyError, IdempotencyKeyReusedError. */
  append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /** 0 when the stream does not exist. */
  streamVersion(streamId: string): Promise<number>;
  /** The global log in order, never stepping past a position that may still commit. */
  readAll(options: ReadAllOptions): Promise<StoredEvent[]>;
  /** The highest global position a reader may see now. */
  lastPosition(): Promise<number>;
  /**
   * The highest committed global position, readable or not yet: on PostgreSQL a commit can be
   * held back (for milliseconds) behind an older transaction still in flight, and `lastPosition`
   * stops below it. What a read-your-writes wait must reach; stores that hold nothing back omit it.
   */
  committedTail?(): Promise<number>;
  /**
   * Optional: how many events have a global position in (after, upTo] — a count of events, which
   * a difference of positions is not where positions have gaps (PostgreSQL). See `countEventsAfter`.
   */
  countBetween?(after: number, upTo: number): Promise<number>;
  listStreams(options: { prefix: string; after?: string; limit: number }): Promise<StreamSummary[]>;
  findIdempotency(scope: string, key: string): Promise<IdempotencyRecord | null>;
  saveSnapshot(snapshot: Snapshot): Promise<void>;
  /**
   * Writes a snapshot, and with it the segments it refers to (a segment id already stored
   * for the stream is kept as it is: ids name contents). All or nothing.
   */
  saveSnapshot(snapshot: Snapshot, segments?: readonly SnapshotSegment[]): Promise<void>;
  /** The newest snapshot at or before `atOrBefore` written by `reducerVersion`; others are ignored. */
  loadSnapshot(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null>;
  /**
   * Optional: `loadSnapshot(streamId, reducerVersion, version)` and the events after it up to
   * `version`, in one read (one round trip on a networked store). See `loadSnapshotAndTail`.
   */
  loadSnapshotAndTail?(streamId: string, reducerVersion: number, version: number): Promise<SnapshotAndTail>;
  /**
   * Optional (a store without it is never given segments): the stored segments of a stream
   * among `ids`, by id; ids not stored are absent from the map.
   */
  loadSnapshotSegments?(streamId: string, ids: readonly string[]): Promise<Map<string, string>>;
  /**
   * Optional (the audit; a store without it is sealed after the fact, see AuditSealer): stored
   * events with their links, in global order, texts as stored.
   */
  readChain?(options: ReadChainOptions): Promise<ChainEvent[]>;
  /**
   * With readChain: the position from which every event carries its link (events below were written
   * before links). Never above the first event stored with a link, whatever the recorded boundary says:
   * that boundary is a mutable row, and raising it must not hide an event inserted after it.
   */
  linksFrom?(): Promise<number>;
  /** With readChain: a new key seals snapshots from now on (earlier keys keep verifying); returns its id. */
  rotateSnapshotKey?(): Promise<number>;
  /** With readChain: every snapshot (of these streams) checked against its seal. */
  checkSnapshots?(options: { streamPrefix?: string; streamId?: string }): Promise<SnapshotCheck>;
  close(): Promise<void>;
}

export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`Stream ${streamId} is at version ${actual}, not ${String(expected)} as expected.`);
    this.name = 'ConcurrencyError';
  }
}

export class IdempotencyKeyReusedError extends Error {
  constructor(readonly key: string) {
    super(`Idempotency key "${key}" was already used for a different request.`);
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** The store's one-read `loadSnapshotAndTail`, or the same answer from `loadSnapshot` then `readStream`. */
export async function loadSnapshotAndTail(store: EventStore, streamId: string, reducerVersion: number, version: number): Promise<SnapshotAndTail> {
  if (store.loadSnapshotAndTail) return store.loadSnapshotAndTail(streamId, reducerVersion, version);
  const snapshot = await store.loadSnapshot(streamId, reducerVersion, version);
  const events = await store.readStream(streamId, { fromVersion: (snapshot?.version ?? 0) + 1, toVersion: version });
  return { snapshot, events };
}

export function checkExpectedVersion(streamId: string, expected: ExpectedVersion, actual: number): void {
  const ok = expected === 'any' || (expected === 'no_stream' ? actual === 0 : expected === actual);
  if (!ok) throw new ConcurrencyError(streamId, expected, actual);
}
