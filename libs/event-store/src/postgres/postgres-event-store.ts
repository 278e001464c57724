import { ExponentialBackoff, noJitterGenerator } from 'cockatiel';
import { decodeMetadata, encodeMetadata } from '../metadata-codec';
import { DatabaseError, Pool, types as pgTypes, type CustomTypesConfig, type PoolClient, type QueryArrayConfig } from 'pg';
import { GroupCommitQueue, type Settled } from '../group-commit';
import { storedIdempotencyKey } from '../idempotency-key';
import { eventDigest } from '../audit/audit-chain';
import type { ChainEvent, ReadChainOptions } from '../event-store';
import {
  ConcurrencyError,
  IdempotencyKeyReusedError,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type IdempotencyRecord,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type Snapshot,
  type SnapshotAndTail,
  type SnapshotSegment,
  type StoredEvent,
  type StreamSummary,
  type SnapshotCheck,
} from '../event-store';
import { unavailable } from './errors';
import { MAX_EVENTS_PER_APPEND, UUID_PATTERN } from './format';
import { EventTypeCodes } from './event-type-codes';
import { migrate } from './migrations';
import { statements, type Statements } from './statements';
import { withTransaction } from './transaction';
import { readChain } from './audit-reads';
import { PostgresSealedSnapshots } from './sealed-snapshots';

export { maskConnectionString, PostgresUnavailableError } from './errors';
export { MAX_EVENTS_PER_APPEND } from './format';

export interface PostgresEventStoreOptions {
  /** e.g. `postgres://user:password@127.0.0.1:5432/rewind` */
  connectionString: string;
  /** Connections in the pool (default 10). An append holds one for a single round trip. */
  poolSize?: number;
  /** The schema that holds Rewind's tables (default `rewind`); lower-case letters, digits and `_`. */
  schema?: string;
  /** Time allowed to open a connection or wait for a free one, in ms (default 10 000). */
  connectionTimeoutMs?: number;
  /**
   * How long `readAll` and `lastPosition` may wait (default 100 ms) for older in-flight
   * transactions to finish when events that committed before the call are held back behind
   * them, so that a reader sees its own committed writes. 0 returns at once with the safe prefix.
   */
  visibilityWaitMs?: number;
  /**
   * Test hook only: when set, an append runs in an explicit transaction and awaits this
   * between its writes and COMMIT (a rejection rolls the append back).
   */
  beforeCommit?: (streamId: string) => Promise<void>;
  /** Test hook only: apply the migrations up to this version and no further (to test upgrades of old schemas). */
  migrateTo?: number;
  /** REWIND_MASTER_KEY (32 bytes): snapshot seals are made with keys derived from it, which the database alone does not hold. */
  masterKey?: Buffer;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const UUID = new RegExp(UUID_PATTERN);

/** bigint columns come back as numbers (global positions stay below 2^53, see the CHECK). */
const TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pgTypes.builtins.INT8 && format !== 'binary' ? Number : pgTypes.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

type EventTuple = [
  globalPosition: number,
  streamId: string,
  streamVersion: number,
  eventId: string,
  type: string | null,
  parentVersion: number | null,
  data: unknown,
  metadata: string | object,
  typeCode: number | null,
];

/** Column of the type code in an event's columns (the name column is `TYPE_NAME`). */
const TYPE_NAME = 4;
const TYPE_CODE = 8;

/** The event in `row` from column `at` on (readAll's rows lead with two columns of their own). */
function toStored(row: EventTuple | unknown[], types: EventTypeCodes, at = 0): StoredEvent {
  const streamId = row[at + 1] as string;
  return {
    eventId: row[at + 3] as string,
    type: types.typeOf(row[at + TYPE_NAME] as string | null, row[at + TYPE_CODE] as number | null),
    data: row[at + 6],
    parentVersion: row[at + 5] as number | null,
    metadata: decodeMetadata(row[at + 7] as string | object, streamId),
    streamId,
    streamVersion: row[at + 2] as number,
    globalPosition: row[at] as number,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** 1, 2, 4, 8, 10, 10, ... ms between looks while commits are held back. */
const heldBackCommits = new ExponentialBackoff({ generator: noJitterGenerator, initialDelay: 1, maxDelay: 10 });

interface AppendRequest {
  streamId: string;
  /** null: any version; 0: the stream must not exist. */
  expected: number | null;
  events: readonly NewEvent[];
  claim: AppendOptions['idempotency'];
}

type AppendRow = [outcome: string, streamId: string, firstVersion: number, lastVersion: number];

/** Each event's texts as sent, and its digest (its link is computed from it by append_events). */
function encoded(streamId: string, e: NewEvent, typeName: string): { data: string; metadata: string; digest: Buffer } {
  const data = JSON.stringify(e.data ?? null);
  const metadata = encodeMetadata(e.metadata, streamId);
  return { data, metadata, digest: eventDigest(streamId, e.eventId, typeName, e.parentVersion ?? null, data, metadata) };
}

const settle = <R>(promise: Promise<R>): Promise<Settled<R>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

interface PgError {
  code?: string;
  constraint?: string;
}

/**
 * The PostgreSQL adapter: raw SQL over a `pg` pool, one round trip per append (a PL/pgSQL
 * function does the idempotency check, the per-stream version check and the batch insert).
 *
 * Global order without holes. Concurrent transactions commit in any order, so a position
 * taken from a sequence can become visible after a greater one; a reader that checkpointed
 * past it would skip it for good. Filtering by `xid < snapshot xmin` alone does not fix a
 * sequence: transaction A (xid 100) may draw position 6 after B (xid 101) drew 5; when A
 * commits while B runs, A's 6 passes the filter and B's 5 appears later, behind the reader.
 *
 * Here the position itself is the transaction id: `(xid8 - origin) * 2^16 + ordinal`, so
 * position order is (transaction id, ordinal) order. A reader returns only positions below
 * `(xmin - origin) * 2^16`, where xmin is the oldest transaction id of this database still running
 * at its snapshot (the snapshot's own xmin spans every database of the server, so other databases'
 * transactions are left out: they cannot write here; see statements.ts). Every transaction of this
 * database with a smaller id has finished (committed and visible, or aborted), so the set
 * of events below the bound is final; every transaction that can still commit has an id >= xmin,
 * so all its positions are above the bound, and above anything a reader has already seen. So
 * once a reader has seen position P, nothing below P can appear: page by page it sees every
 * committed event exactly once, in increasing position order. No locks serialize appends.
 * Positions are sparse (gaps of up to 2^16 per transaction), increasing, and below 2^53 for the
 * first 2^37 transaction ids after the schema was created.
 */
export class PostgresEventStore implements EventStore {
  private closed = false;
  private readonly sql: Statements;
  private readonly snapshots: PostgresSealedSnapshots;
  private readonly types: EventTypeCodes;
  /** Appends that arrive while others are in flight go together (see flushAppends). */
  private readonly appends: GroupCommitQueue<AppendRequest, AppendRow>;

  private constructor(
    readonly pool: Pool,
    readonly schema: string,
    private readonly origin: number,
    private readonly options: PostgresEventStoreOptions,
  ) {
    this.sql = statements(`"${schema}"`);
    this.snapshots = new PostgresSealedSnapshots(pool, schema, this.sql, options.masterKey);
    this.types = new EventTypeCodes(pool, this.sql);
    this.appends = new GroupCommitQueue((requests) => this.flushAppends(requests), {
      // Half the pool at most: reads (state, the log) keep connections of their own.
      maxInFlight: Math.max(1, Math.floor((options.poolSize ?? 10) / 2)),
      // Bounds how long one transaction holds its streams' locks; the events must fit the 2^16 ordinals of a transaction.
      maxItems: 64,
      sizeOf: (r) => r.events.length,
      maxSize: MAX_EVENTS_PER_APPEND,
    });
  }

  /** Connects, creates or migrates the schema (idempotent, safe with concurrent openers), verifies the server. */
  static async open(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const schema = options.schema ?? 'rewind';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name "${schema}": use lower-case letters, digits and _.`);
    const pool = new Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
      application_name: 'rewind',
      // Every statement of the store reads by an index (a position, a stream, a key). A connection
      // keeps its prepared statements' plans, and a plan made while a table was small (a fresh
      // store) may scan the table: with no ANALYZE since (autovacuum off or not yet run) it is
      // never replanned, and each call reads the whole log (issue 26: readAll on one connection
      // of the pool, ~2.4 times a second, 225 k rows each, growing with the log).
      options: '-c enable_seqscan=off',
      types: TYPES,
    });
    // An idle connection that dies (server restart) is dropped by the pool; the next query reconnects.
    pool.on('error', () => undefined);
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw unavailable(options.connectionString, error);
    }
    try {
      const origin = await migrate(client, schema, options.migrateTo);
      client.release();
      const store = new PostgresEventStore(pool, schema, origin, options);
      // Before migration 9 (a store opened at an older migration, in tests) there is no key: no snapshot is then served.
      if (options.migrateTo === undefined || options.migrateTo >= 9) await store.snapshots.keys.refresh();
      return store;
    } catch (error) {
      client.release(error as Error);
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (events.length > MAX_EVENTS_PER_APPEND) {
      throw new RangeError(`An append takes at most ${MAX_EVENTS_PER_APPEND} events; got ${events.length}.`);
    }
    const expected = options.expectedVersion === 'any' ? null : options.expectedVersion === 'no_stream' ? 0 : options.expectedVersion;
    const claim = options.idempotency;
    const request: AppendRequest = { streamId, expected, events, claim };
    if (!this.types.knowsAll(events.map((e) => e.type))) await this.types.register(events.map((e) => e.type));
    let row: AppendRow;
    try {
      row = this.options.beforeCommit ? await this.appendInTransaction(request, this.options.beforeCommit) : await this.appends.submit(request);
    } catch (error) {
      const { code, constraint } = error as PgError;
      if (code === '23505' && constraint === 'idempotency_keys_pk' && claim) {
        // Lost the race to an identical keyed request: answer as the winner did.
        const winner = await this.findIdempotency(claim.scope, claim.key);
        if (winner) return this.answerDuplicate(winner, claim.fingerprint, claim.key);
      }
      if (code === '23505' && constraint === 'events_stream_version_uq') {
        throw new ConcurrencyError(streamId, options.expectedVersion, await this.streamVersion(streamId));
      }
      if (code === '23505' && (constraint === 'events_event_id_uq' || constraint === 'events_event_text_uq')) {
        throw new Error(`Duplicate event id in append to ${streamId}: event ids are unique across the store.`, { cause: error });
      }
      throw error;
    }
    const [outcome, resultStream, firstVersion, lastVersion] = row;
    switch (outcome) {
      case 'appended':
        return { streamId: resultStream, firstVersion, lastVersion, duplicate: false };
      case 'duplicate':
        return { streamId: resultStream, firstVersion, lastVersion, duplicate: true };
      case 'key_reused':
        throw new IdempotencyKeyReusedError(claim?.key ?? '');
      case 'conflict':
        throw new ConcurrencyError(streamId, options.expectedVersion, lastVersion);
      default:
        throw new Error(`Unexpected append outcome "${outcome}".`);
    }
  }

  private appendQuery({ streamId, expected, events, claim }: AppendRequest): QueryArrayConfig {
    const texts = events.map((e) => encoded(streamId, e, e.type));
    return {
      ...this.sql.append,
      rowMode: 'array',
      values: [
        streamId,
        expected,
        events.map((e) => (UUID.test(e.eventId) ? e.eventId : null)),
        events.map((e) => (UUID.test(e.eventId) ? null : e.eventId)),
        events.map((e) => this.types.code(e.type)),
        events.map((e) => e.parentVersion ?? null),
        texts.map((t) => t.data),
        texts.map((t) => t.metadata),
        this.origin,
        claim?.scope ?? null,
        claim ? storedIdempotencyKey(claim.key) : null,
        claim?.fingerprint ?? null,
        texts.map((t) => t.digest),
      ],
    };
  }

  /**
   * Sends the appends waiting together: one call of append_batch, one transaction. If the
   * server refuses the batch (a unique violation, a deadlock: the whole transaction is rolled
   * back, nothing was written), each append is tried again alone and answers for itself, as
   * it would have without group commit.
   */
  private async flushAppends(requests: AppendRequest[]): Promise<Settled<AppendRow>[]> {
    if (requests.length === 1) return [await settle(this.pool.query(this.appendQuery(requests[0]!)).then((r) => r.rows[0] as AppendRow))];
    const events = requests.flatMap((r) => r.events.map((e) => ({ e, streamId: r.streamId, ...encoded(r.streamId, e, e.type) })));
    try {
      const result = await this.pool.query({
        ...this.sql.appendBatch,
        rowMode: 'array',
        values: [
          requests.map((r) => r.streamId),
          requests.map((r) => r.expected),
          requests.map((r) => r.events.length),
          events.map(({ e }) => (UUID.test(e.eventId) ? e.eventId : null)),
          events.map(({ e }) => (UUID.test(e.eventId) ? null : e.eventId)),
          events.map(({ e }) => this.types.code(e.type)),
          events.map(({ e }) => e.parentVersion ?? null),
          events.map(({ data }) => data),
          events.map(({ metadata }) => metadata),
          this.origin,
          requests.map((r) => r.claim?.scope ?? null),
          requests.map((r) => (r.claim ? storedIdempotencyKey(r.claim.key) : null)),
          requests.map((r) => r.claim?.fingerprint ?? null),
          events.map(({ digest }) => digest),
        ],
      });
      return (result.rows as AppendRow[]).map((row) => ({ ok: true, value: row }));
    } catch (error) {
      if (!(error instanceof DatabaseError)) throw error;
      return Promise.all(requests.map((r) => settle(this.pool.query(this.appendQuery(r)).then((res) => res.rows[0] as AppendRow))));
    }
  }

  /** The test hook's path: an explicit transaction that waits for `hook` before COMMIT. */
  private appendInTransaction(request: AppendRequest, hook: (streamId: string) => Promise<void>): Promise<AppendRow> {
    return withTransaction(this.pool, async (client) => {
      const row = (await client.query(this.appendQuery(request))).rows[0] as AppendRow;
      await hook(request.streamId);
      return row;
    });
  }

  private answerDuplicate(record: IdempotencyRecord, fingerprint: string, key: string): AppendResult {
    if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError(key);
    return { streamId: record.streamId, firstVersion: record.firstVersion, lastVersion: record.lastVersion, duplicate: true };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const result = await this.pool.query<EventTuple>({
      ...this.sql.readStream,
      rowMode: 'array',
      values: [streamId, options.fromVersion ?? 1, options.toVersion ?? Number.MAX_SAFE_INTEGER, options.limit ?? null],
    });
    await this.types.learnCodes(result.rows.map((row) => row[TYPE_CODE]));
    return result.rows.map((row) => toStored(row, this.types));
  }

  async streamVersion(streamId: string): Promise<number> {
    const result = await this.pool.query<[number]>({ ...this.sql.streamVersion, rowMode: 'array', values: [streamId] });
    return result.rows[0]?.[0] ?? 0;
  }

  /**
   * Returns events below the snapshot's safe bound (see the class comment). When events that
   * had committed before the call are held back behind an older in-flight transaction and the
   * page is not full, waits up to `visibilityWaitMs` for that transaction to finish.
   */
  async readAll(options: ReadAllOptions): Promise<StoredEvent[]> {
    const deadline = Date.now() + (this.options.visibilityWaitMs ?? 100);
    let committedTail: number | undefined;
    for (let wait = heldBackCommits.next(); ; wait = wait.next(undefined)) {
      const result = await this.pool.query<unknown[]>({ ...this.sql.readAll, rowMode: 'array', values: [options.after, options.limit, this.origin] });
      const first = result.rows[0];
      const bound = (first?.[0] as number | undefined) ?? 0;
      committedTail ??= (first?.[1] as number | null | undefined) ?? 0;
      const events: StoredEvent[] = [];
      await this.types.learnCodes(result.rows.map((row) => (row[2 + TYPE_CODE] as number | null) ?? null));
      for (const row of result.rows) if (row[2] !== null) events.push(toStored(row, this.types, 2));
      const settled = bound > committedTail || committedTail <= options.after;
      if (settled || events.length >= options.limit || Date.now() >= deadline) return events;
      await sleep(wait.duration);
    }
  }

  /** The highest position below the safe bound; waits like `readAll` for held-back commits. */
  async lastPosition(): Promise<number> {
    const deadline = Date.now() + (this.options.visibilityWaitMs ?? 100);
    let committedTail: number | undefined;
    for (let wait = heldBackCommits.next(); ; wait = wait.next(undefined)) {
      const result = await this.pool.query<[number, number | null, number | null]>({ ...this.sql.lastPosition, rowMode: 'array', values: [this.origin] });
      const [bound, safe, tail] = result.rows[0] ?? [0, null, null];
      committedTail ??= tail ?? 0;
      if (bound > committedTail || Date.now() >= deadline) return safe ?? 0;
      await sleep(wait.duration);
    }
  }

  async committedTail(): Promise<number> {
    const result = await this.pool.query<[number | null]>({ ...this.sql.committedTail, rowMode: 'array' });
    return result.rows[0]?.[0] ?? 0;
  }

  async countBetween(after: number, upTo: number): Promise<number> {
    const result = await this.pool.query<[string]>({ ...this.sql.countBetween, rowMode: 'array', values: [after, upTo] });
    return Number(result.rows[0]?.[0] ?? 0);
  }

  async listStreams(options: { prefix: string; after?: string; limit: number }): Promise<StreamSummary[]> {
    const result = await this.pool.query<[string, number, Date, Date]>({
      ...this.sql.listStreams,
      rowMode: 'array',
      values: [options.prefix, options.prefix + '\uffff', options.after ?? '', options.limit],
    });
    return result.rows.map(([streamId, version, createdAt, updatedAt]) => ({
      streamId,
      version,
      createdAt: createdAt.toISOString(),
      updatedAt: updatedAt.toISOString(),
    }));
  }

  async findIdempotency(scope: string, key: string): Promise<IdempotencyRecord | null> {
    const result = await this.pool.query<[string, string, string, string, number, number]>({
      ...this.sql.findIdempotency,
      rowMode: 'array',
      values: [scope, storedIdempotencyKey(key)],
    });
    const row = result.rows[0];
    return row ? { scope: row[0], key: row[1], fingerprint: row[2], streamId: row[3], firstVersion: row[4], lastVersion: row[5] } : null;
  }

  saveSnapshot(snapshot: Snapshot, segments: readonly SnapshotSegment[] = []): Promise<void> {
    return this.snapshots.save(snapshot, segments);
  }

  /** One round trip: a first row for the snapshot (if any), then one per event of the tail. */
  async loadSnapshotAndTail(streamId: string, reducerVersion: number, version: number): Promise<SnapshotAndTail> {
    const result = await this.pool.query<unknown[]>({ ...this.sql.loadSnapshotAndTail, rowMode: 'array', values: [streamId, reducerVersion, version] });
    let snapshot: Snapshot | null = null;
    let rejected: { version: number; problem: string } | undefined;
    const events: StoredEvent[] = [];
    await this.types.learnCodes(result.rows.map((row) => (row[4 + TYPE_CODE] as number | null) ?? null));
    for (const row of result.rows) {
      if (row[0] === 0) {
        const checked = await this.snapshots.checked(streamId, reducerVersion, {
          version: row[1] as number,
          state: row[2] as string | null,
          deflated: row[3] as Buffer | null,
          seal: row[13] as Buffer | null,
          link: row[14] as Buffer | null,
        });
        snapshot = checked.snapshot;
        rejected = checked.rejected;
      } else events.push(toStored(row, this.types, 4));
    }
    if (result.rows[0]?.[0] === 0 && !snapshot) {
      // Not served: the whole stream is replayed up to the version instead.
      return { snapshot: null, events: await this.readStream(streamId, { toVersion: version }), ...(rejected ? { rejected } : {}) };
    }
    return { snapshot, events };
  }

  loadSnapshotSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    return this.snapshots.loadSegments(streamId, ids);
  }

  loadSnapshot(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null> {
    return this.snapshots.load(streamId, reducerVersion, atOrBefore);
  }

  readChain(options: ReadChainOptions): Promise<ChainEvent[]> {
    return readChain(this.pool, this.schema, this.types, options);
  }

  /** A new snapshot key seals from now on; earlier keys keep verifying. Returns its id. */
  rotateSnapshotKey(): Promise<number> {
    return this.snapshots.rotateKey();
  }

  async linksFrom(): Promise<number> {
    // Never above the first event written with a link: raising the recorded boundary in the database must
    // not turn events after it into "written before links" (an event inserted there would pass as one).
    const s = `"${this.schema}"`;
    const result = await this.pool.query<[number | null]>({
      text: `SELECT least(links_from, (SELECT min(global_position) FROM ${s}.events WHERE link IS NOT NULL)) FROM ${s}.store_info`,
      rowMode: 'array',
    });
    return result.rows[0]?.[0] ?? 0;
  }

  checkSnapshots(options: { streamPrefix?: string; streamId?: string }): Promise<SnapshotCheck> {
    return this.snapshots.check(options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
