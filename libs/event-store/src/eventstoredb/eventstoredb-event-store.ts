import { LRUCache } from 'lru-cache';
import { ExponentialBackoff, noJitterGenerator } from 'cockatiel';
import {
  AccessDeniedError,
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type AppendExpectedRevision,
  type Position,
} from '@eventstore/db-client';
import {
  checkExpectedVersion,
  IdempotencyKeyReusedError,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type IdempotencyClaim,
  type IdempotencyRecord,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type Snapshot,
  type SnapshotSegment,
  type StoredEvent,
  type StreamSummary,
} from '../event-store';
import type { PruneSnapshotsOptions, PruneSnapshotsResult, SnapshotPruner } from '../snapshot-pruning';
import { storedIdempotencyKey } from '../idempotency-key';
import { EventStoreDbUnavailableError, maskEventStoreDbUrl, toPortError, unavailableOr } from './errors';
import { toEventData, toStoredEvent } from './event-mapping';
import { IdempotencyClaims } from './idempotency-claims';
import { globalPositionOf, readPositionOf } from './position';
import { scanAll } from './read-all';
import { SnapshotStreams } from './snapshot-streams';
import { StreamCatalogue } from './stream-catalogue';
import { StreamNames } from './stream-names';

export { AppendTooLargeError, EventStoreDbUnavailableError, maskEventStoreDbUrl } from './errors';

export interface EventStoreDbEventStoreOptions {
  /** The client's connection string, e.g. `esdb://127.0.0.1:2113?tls=false` (EVENTSTOREDB_URL). */
  url: string;
  /** Prefix of every stream the store writes (default `rewind`); several deployments can share a server. */
  namespace?: string;
  /** How long a claim on an Idempotency-Key may stay unfinished before another request takes it over, in ms (default 30 000). */
  claimLeaseMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** 1, 2, 4, ... 50 ms between looks while another request holds the idempotency claim. */
const claimHeld = new ExponentialBackoff({ generator: noJitterGenerator, initialDelay: 1, maxDelay: 50 });

/** The client's expected revision for the port's expected version (revisions count from 0, versions from 1). */
export function expectedRevisionOf(expected: ExpectedVersion): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream' || expected === 0) return NO_STREAM;
  return BigInt(expected - 1);
}

/**
 * The EventStoreDB adapter (`@eventstore/db-client`; KurrentDB servers too), one server
 * stream per port stream (see stream-names.ts for every stream it writes).
 *
 * Global order without holes. The port's global position is the event's `$all` commit position
 * (position.ts). The server appends with one writer, in log order, and a reader of `$all` sees
 * only what has been indexed, which happens in log order (and, on a cluster leader, only once a
 * quorum has the records): what a reader sees is always a prefix of the log. So once it has seen
 * position P, nothing can appear below P. Positions are sparse (byte offsets; other streams'
 * records, snapshots and idempotency records lie between), increasing, and every subscriber
 * checkpoints the last position it handled and reads on after it, as on the SQL stores.
 */
export class EventStoreDbEventStore implements EventStore, SnapshotPruner {
  private closed = false;
  private readonly claims: IdempotencyClaims;
  private readonly catalogue: StreamCatalogue;
  private readonly snapshots: SnapshotStreams;
  /** The newest log position found by `lastPosition`, and the newest `$all` position it has looked at. */
  private newestLogPosition = 0;
  private scannedTo: number;
  private scanning: Promise<number> | null = null;
  /**
   * Where a read after a given position can resume: the last record a previous read looked at
   * (snapshots, idempotency records and other streams' events lie between log events, and an
   * idle subscriber asks for the same `after` many times). Everything up to it was visible and
   * is final, so nothing new can appear before it.
   */
  private readonly resumeAt = new LRUCache<number, Position>({ max: 256 });

  private constructor(
    readonly client: EventStoreDBClient,
    readonly names: StreamNames,
    /** The position of the namespace's origin event: the log starts after it. */
    readonly origin: number,
    private readonly options: EventStoreDbEventStoreOptions,
  ) {
    this.scannedTo = origin;
    this.claims = new IdempotencyClaims(
      client,
      (scope, key) => names.idempotency(scope, key),
      (id) => names.log(id),
    );
    this.catalogue = new StreamCatalogue(client, names.catalogue, (id) => names.log(id));
    this.snapshots = new SnapshotStreams(client, names);
  }

  /** Connects and records (or finds) the namespace's origin; fails with a message naming EVENTSTOREDB_URL when the server cannot be reached. */
  static async open(options: EventStoreDbEventStoreOptions): Promise<EventStoreDbEventStore> {
    const names = new StreamNames(options.namespace ?? 'rewind');
    let client: EventStoreDBClient;
    try {
      client = EventStoreDBClient.connectionString(options.url);
    } catch (error) {
      throw new Error(`EVENTSTOREDB_URL is not a valid EventStoreDB connection string (${(error as Error).message}); e.g. esdb://127.0.0.1:2113?tls=false.`, {
        cause: error,
      });
    }
    try {
      const origin = await originOf(client, names);
      return new EventStoreDbEventStore(client, names, origin, options);
    } catch (error) {
      await client.dispose().catch(() => undefined);
      throw openError(error, options.url);
    }
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const ids = events.map((e) => e.eventId);
    if (new Set(ids).size !== ids.length) throw new Error(`Duplicate event id in append to ${streamId}: event ids are unique within an append.`);
    if (events.length === 0) {
      const version = await this.streamVersion(streamId);
      checkExpectedVersion(streamId, options.expectedVersion, version);
      return { streamId, firstVersion: version + 1, lastVersion: version, duplicate: false };
    }
    if (!options.idempotency) return this.write(streamId, events, options.expectedVersion);
    try {
      return await this.appendClaimed(streamId, events, options.expectedVersion, options.idempotency);
    } catch (error) {
      throw unavailableOr(error, this.options.url);
    }
  }

  private async write(streamId: string, events: readonly NewEvent[], expected: ExpectedVersion, idempotencyKey?: string): Promise<AppendResult> {
    try {
      // A stream is catalogued before its first append (see StreamCatalogue); from version 1 on it already is.
      if (expected === 'any' || expected === 'no_stream' || expected === 0) await this.catalogue.ensure(streamId);
      const result = await this.client.appendToStream(
        this.names.log(streamId),
        events.map((e) => toEventData(e, idempotencyKey)),
        { expectedRevision: expectedRevisionOf(expected), requiresLeader: true },
      );
      this.catalogue.remember(streamId);
      const lastVersion = Number(result.nextExpectedRevision) + 1;
      return { streamId, firstVersion: lastVersion - events.length + 1, lastVersion, duplicate: false };
    } catch (error) {
      throw toPortError(error, this.options.url, streamId, expected);
    }
  }

  /** An append with an Idempotency-Key: claim the key, append, record the outcome (see IdempotencyClaims). */
  private async appendClaimed(streamId: string, events: readonly NewEvent[], expected: ExpectedVersion, claim: IdempotencyClaim): Promise<AppendResult> {
    const key = storedIdempotencyKey(claim.key);
    const lease = this.options.claimLeaseMs ?? 30_000;
    for (let wait = claimHeld.next(); ; wait = wait.next(undefined)) {
      const state = await this.claims.state(claim.scope, key);
      if (state.kind === 'completed') return answerDuplicate(state.record, claim);
      if (state.kind === 'claimed') {
        if (state.fingerprint !== claim.fingerprint) throw new IdempotencyKeyReusedError(claim.key);
        // Another request with this key is appending: wait for its outcome, or take over a claim its holder left.
        if (Date.now() - state.claimedAt > lease) await this.claims.recover(claim.scope, key, state);
        else await sleep(wait.duration);
        continue;
      }
      const fromVersion = await this.streamVersion(streamId);
      if (!(await this.claims.claim(claim.scope, key, state.revision, { fingerprint: claim.fingerprint, streamId, fromVersion }))) continue;
      const claimRevision = state.revision === NO_STREAM ? 0n : state.revision + 1n;
      let result: AppendResult;
      try {
        result = await this.write(streamId, events, expected, key);
      } catch (error) {
        // If even the release fails, the claim is taken over after the lease (nothing carries the key).
        await this.claims.release(claim.scope, key, claimRevision).catch(() => undefined);
        throw error;
      }
      // The events are written: answer with them even if recording the outcome fails; a retry then
      // finds the claim, and after the lease completes it from the events that carry the key.
      await this.claims
        .complete(claim.scope, key, claimRevision, {
          fingerprint: claim.fingerprint,
          streamId,
          firstVersion: result.firstVersion,
          lastVersion: result.lastVersion,
        })
        .catch(() => undefined);
      return result;
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const from = Math.max(1, options.fromVersion ?? 1);
    const to = options.toVersion ?? Number.MAX_SAFE_INTEGER;
    const limit = Math.min(options.limit ?? Number.MAX_SAFE_INTEGER, to - from + 1);
    if (limit <= 0) return [];
    const events: StoredEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(this.names.log(streamId), {
        fromRevision: BigInt(from - 1),
        direction: FORWARDS,
        maxCount: limit,
        requiresLeader: true,
      })) {
        const event = resolved.event;
        if (!event) continue;
        if (!event.position)
          throw new Error('EventStoreDB did not return event positions on stream reads: Rewind needs EventStoreDB 22.6 or later (or KurrentDB).');
        events.push(toStoredEvent(event, streamId, globalPositionOf(event.position, event.id)));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw unavailableOr(error, this.options.url);
    }
    return events;
  }

  async streamVersion(streamId: string): Promise<number> {
    try {
      for await (const resolved of this.client.readStream(this.names.log(streamId), {
        fromRevision: END,
        direction: BACKWARDS,
        maxCount: 1,
        requiresLeader: true,
      })) {
        if (resolved.event) return Number(resolved.event.revision) + 1;
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return 0;
      throw unavailableOr(error, this.options.url);
    }
    return 0;
  }

  /**
   * Reads `$all` from `after` (a position this store returned, or 0), keeping the events of
   * the namespace's log streams. A read starts at a record, so it starts at `after` itself (or
   * the origin) and skips what is not after it.
   */
  async readAll(options: ReadAllOptions): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    if (options.limit <= 0) return events;
    const after = BigInt(options.after);
    let examined: Position | undefined;
    const resume = this.resumeAt.get(options.after);
    try {
      await scanAll(this.client, resume ?? readPositionOf(Math.max(options.after, this.origin)), (event) => {
        examined = event.position;
        if (event.position.commit <= after) return 'continue';
        const streamId = this.names.portStreamId(event.streamId);
        if (streamId === null || event.type.startsWith('$')) return 'continue';
        events.push(toStoredEvent(event, streamId, globalPositionOf(event.position, event.id)));
        return events.length >= options.limit ? 'stop' : 'continue';
      });
    } catch (error) {
      const mapped = unavailableOr(error, this.options.url);
      if (mapped !== error || resume || options.after <= this.origin) throw mapped;
      throw new Error(
        `EventStoreDB could not read $all after position ${options.after} (${(error as Error).message}). Positions on EventStoreDB are offsets this store gave; ` +
          'a checkpoint kept by another store (e.g. SQLite event counts in a reused REWIND_DATA_DIR) is not one: use a fresh data directory.',
        { cause: error },
      );
    }
    this.rememberScan(events.length > 0 ? events[events.length - 1]!.globalPosition : options.after, examined);
    return events;
  }

  /** The next read after `from` may start at `examined` (see resumeAt); a few hundred subscribers' worth are kept. */
  private rememberScan(from: number, examined: Position | undefined): void {
    if (!examined || examined.commit <= BigInt(from)) return;
    this.resumeAt.set(from, examined);
  }

  /**
   * The position of the newest log event readers can see (0 before the first). Reads `$all`
   * backwards from its end down to what the last call already looked at, so a call costs the
   * records written since. Concurrent calls share one read.
   */
  async lastPosition(): Promise<number> {
    this.scanning ??= this.scanForNewest().finally(() => {
      this.scanning = null;
    });
    return this.scanning;
  }

  private async scanForNewest(): Promise<number> {
    const floor = BigInt(this.scannedTo);
    let top: bigint | null = null;
    try {
      await scanAll(this.client, END, (event) => {
        const at = event.position.commit;
        if (at <= floor) return 'stop';
        top ??= at;
        if (this.names.portStreamId(event.streamId) === null || event.type.startsWith('$')) return 'continue';
        this.newestLogPosition = Math.max(this.newestLogPosition, globalPositionOf(event.position, event.id));
        return 'stop';
      });
    } catch (error) {
      throw unavailableOr(error, this.options.url);
    }
    if (top !== null) this.scannedTo = Math.max(this.scannedTo, Number(top));
    return this.newestLogPosition;
  }

  async listStreams(options: { prefix: string; after?: string; limit: number }): Promise<StreamSummary[]> {
    try {
      return await this.catalogue.list(options);
    } catch (error) {
      throw unavailableOr(error, this.options.url);
    }
  }

  async findIdempotency(scope: string, key: string): Promise<IdempotencyRecord | null> {
    const state = await this.claims.state(scope, storedIdempotencyKey(key)).catch((error: unknown) => Promise.reject(unavailableOr(error, this.options.url)));
    return state.kind === 'completed' ? state.record : null;
  }

  async saveSnapshot(snapshot: Snapshot, segments: readonly SnapshotSegment[] = []): Promise<void> {
    try {
      await this.snapshots.save(snapshot, segments);
    } catch (error) {
      throw toPortError(error, this.options.url, this.names.snapshots(snapshot.streamId), 'any');
    }
  }

  async loadSnapshot(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null> {
    return this.snapshots.load(streamId, reducerVersion, atOrBefore).catch((error: unknown) => Promise.reject(unavailableOr(error, this.options.url)));
  }

  async loadSnapshotSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    return this.snapshots.loadSegments(streamId, ids).catch((error: unknown) => Promise.reject(unavailableOr(error, this.options.url)));
  }

  /** Snapshot retention on the server (see SnapshotStreams.prune: truncation, then the next scavenge). */
  async pruneSnapshots(options: PruneSnapshotsOptions): Promise<PruneSnapshotsResult> {
    try {
      return await this.snapshots.prune(await this.catalogue.all(), options);
    } catch (error) {
      throw unavailableOr(error, this.options.url);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.dispose();
  }
}

function answerDuplicate(record: IdempotencyRecord, claim: IdempotencyClaim): AppendResult {
  if (record.fingerprint !== claim.fingerprint) throw new IdempotencyKeyReusedError(claim.key);
  return { streamId: record.streamId, firstVersion: record.firstVersion, lastVersion: record.lastVersion, duplicate: true };
}

/** Writes the namespace's origin event the first time, else reads it: its position is where the log starts. */
async function originOf(client: EventStoreDBClient, names: StreamNames): Promise<number> {
  const positionOf = (position: Position | undefined): number => {
    if (!position) throw new Error('EventStoreDB did not return the position of a write: Rewind needs EventStoreDB 22.6 or later (or KurrentDB).');
    // The write's commit position is where its first record starts: a valid place to read from.
    return globalPositionOf({ commit: position.commit, prepare: position.commit }, names.origin);
  };
  try {
    const written = await client.appendToStream(names.origin, jsonEvent({ type: 'RewindNamespaceOpened', data: { namespace: names.namespace } }), {
      expectedRevision: NO_STREAM,
      requiresLeader: true,
    });
    return positionOf(written.position);
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
  }
  for await (const resolved of client.readStream(names.origin, { maxCount: 1, requiresLeader: true })) {
    if (resolved.event) return positionOf(resolved.event.position);
  }
  throw new Error(`EventStoreDB stream ${names.origin} exists but has no event: was it deleted? Choose another namespace or restore it.`);
}

function openError(error: unknown, url: string): Error {
  if (error instanceof AccessDeniedError) {
    return new EventStoreDbUnavailableError(
      `EventStoreDB at ${maskEventStoreDbUrl(url)} refused the credentials (${error.message}). Check the user and password in EVENTSTOREDB_URL.`,
      { cause: error },
    );
  }
  const mapped = unavailableOr(error, url);
  if (mapped !== error) return mapped as Error;
  const detail = error instanceof Error ? error.message : String(error);
  return new EventStoreDbUnavailableError(
    `Cannot open EventStoreDB at ${maskEventStoreDbUrl(url)} (${detail}). Check EVENTSTOREDB_URL and that the server is running.`,
    {
      cause: error,
    },
  );
}
