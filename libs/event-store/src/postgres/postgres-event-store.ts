import { decodeMetadata, encodeMetadata } from '../metadata-codec';
import { DatabaseError, Pool, types as pgTypes, type CustomTypesConfig, type PoolClient, type QueryArrayConfig } from 'pg';
import { GroupCommitQueue, type Settled } from '../group-commit';
import { decodeSegment, encodeSegment } from '../snapshot-codec';
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
} from '../event-store';

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
}

/** The database could not be reached or refused the connection when the store was opened. */
export class PostgresUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PostgresUnavailableError';
  }
}

/**
 * Global positions encode the appending transaction: `(xid8 - origin) * 2^16 + ordinal`, where
 * `origin` is the xid of the transaction that created the schema and `ordinal` (1..65535) is
 * the event's place in its batch. See the class comment for why this gives holes-free reads.
 */
const POSITION_SHIFT = 65_536;
/** Events per append: the ordinal must fit below POSITION_SHIFT. */
export const MAX_EVENTS_PER_APPEND = POSITION_SHIFT - 1;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Event ids stored as uuid (migration 2): exactly what `uuid::text` gives back. */
const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const UUID = new RegExp(UUID_PATTERN);

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * append_events for the compact events layout (migration 2); `withOffset` (migration 3) places
 * an append's positions after the ordinals other appends of the same transaction used.
 */
function compactAppendEvents(s: string, withOffset: boolean): string {
  return `CREATE FUNCTION ${s}.append_events(
  p_stream_id   text,
  p_expected    bigint,  -- NULL: any version; 0: the stream must not exist; n: must be at n
  p_event_uuids uuid[],
  p_event_texts text[],
  p_types       text[],
  p_parents     bigint[],
  p_data        json[],  -- json[], not one json document: json field operators reject escaped NUL characters
  p_metadata    json[],
  p_origin      bigint,  -- store_info.xid_origin
  p_scope       text,
  p_key         text,    -- NULL: no idempotency claim
  p_fingerprint text,${
    withOffset
      ? `
  p_offset      integer, -- ordinals already used in this transaction (group commit)`
      : ''
  }
  OUT o_outcome       text,
  OUT o_stream_id     text,
  OUT o_first_version bigint,
  OUT o_last_version  bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_count       integer := coalesce(cardinality(p_types), 0);
  v_current     bigint;
  v_key         bigint;
  v_conflict    boolean := false;
  v_fingerprint text;
  v_base        bigint;
BEGIN
  IF p_key IS NOT NULL THEN
    SELECT k.fingerprint, k.stream_id, k.first_version, k.last_version
      INTO v_fingerprint, o_stream_id, o_first_version, o_last_version
      FROM ${s}.idempotency_keys k WHERE k.scope = p_scope AND k.key = p_key;
    IF FOUND THEN
      o_outcome := CASE WHEN v_fingerprint = p_fingerprint THEN 'duplicate' ELSE 'key_reused' END;
      RETURN;
    END IF;
  END IF;

  -- The streams row is the per-stream lock: the UPDATE waits for a concurrent append to the
  -- same stream and re-checks the expected version against the version it committed.
  LOOP
    UPDATE ${s}.streams st SET version = st.version + v_count, updated_at = now()
     WHERE st.stream_id = p_stream_id AND (p_expected IS NULL OR st.version = p_expected)
    RETURNING st.version - v_count, st.id INTO v_current, v_key;
    EXIT WHEN FOUND;
    SELECT st.version INTO v_current FROM ${s}.streams st WHERE st.stream_id = p_stream_id;
    IF FOUND THEN
      -- Created or moved by a concurrent append since the UPDATE's snapshot: look again.
      CONTINUE WHEN p_expected IS NULL OR v_current = p_expected;
      v_conflict := true;
      EXIT;
    END IF;
    v_current := 0;
    IF p_expected IS NOT NULL AND p_expected <> 0 THEN
      v_conflict := true;
      EXIT;
    END IF;
    INSERT INTO ${s}.streams (stream_id, version, created_at, updated_at)
    VALUES (p_stream_id, v_count, now(), now())
    ON CONFLICT (stream_id) DO NOTHING
    RETURNING id INTO v_key;
    EXIT WHEN FOUND;
    -- A concurrent append created the stream and committed: look again.
  END LOOP;

  IF v_conflict THEN
    -- An identical keyed request may have won the race for this stream: answer as it did.
    IF p_key IS NOT NULL THEN
      SELECT k.fingerprint, k.stream_id, k.first_version, k.last_version
        INTO v_fingerprint, o_stream_id, o_first_version, o_last_version
        FROM ${s}.idempotency_keys k WHERE k.scope = p_scope AND k.key = p_key;
      IF FOUND THEN
        o_outcome := CASE WHEN v_fingerprint = p_fingerprint THEN 'duplicate' ELSE 'key_reused' END;
        RETURN;
      END IF;
    END IF;
    o_outcome := 'conflict';
    o_stream_id := p_stream_id;
    o_last_version := v_current;
    RETURN;
  END IF;

  IF v_count > 0 THEN
    -- The position is derived from this transaction's id (assigned by the write above).
    v_base := (pg_current_xact_id()::text::bigint - p_origin) * ${POSITION_SHIFT};
    INSERT INTO ${s}.events (global_position, stream_key, stream_version, parent_version, event_uuid, type, event_text, data, metadata)
    SELECT v_base + ${withOffset ? 'p_offset + ' : ''}e.ordinal, v_key, v_current + e.ordinal, e.parent_version, e.event_uuid, e.type, e.event_text, e.data, e.metadata
      FROM unnest(p_event_uuids, p_event_texts, p_types, p_parents, p_data, p_metadata)
           WITH ORDINALITY AS e(event_uuid, event_text, type, parent_version, data, metadata, ordinal);
  END IF;

  IF p_key IS NOT NULL THEN
    -- The primary key settles a race with an identical request on another stream (or with
    -- expected version "any"): the loser fails here, is rolled back and answers from the winner.
    INSERT INTO ${s}.idempotency_keys (scope, key, fingerprint, stream_id, first_version, last_version, created_at)
    VALUES (p_scope, p_key, p_fingerprint, p_stream_id, v_current + 1, v_current + v_count, now());
  END IF;

  o_outcome := 'appended';
  o_stream_id := p_stream_id;
  o_first_version := v_current + 1;
  o_last_version := v_current + v_count;
END;
$fn$;
`;
}

function migrations(s: string): Migration[] {
  return [
    {
      version: 1,
      name: 'event store tables and append function',
      sql: `
CREATE TABLE ${s}.store_info (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  xid_origin bigint  NOT NULL
);
INSERT INTO ${s}.store_info (xid_origin) VALUES (pg_current_xact_id()::text::bigint);

CREATE TABLE ${s}.events (
  global_position bigint  NOT NULL,
  stream_id       text    COLLATE "C" NOT NULL,
  stream_version  bigint  NOT NULL,
  event_id        text    NOT NULL,
  type            text    NOT NULL,
  parent_version  bigint,
  data            json    NOT NULL,
  metadata        json    NOT NULL,
  CONSTRAINT events_pk PRIMARY KEY (global_position),
  CONSTRAINT events_stream_version_uq UNIQUE (stream_id, stream_version),
  CONSTRAINT events_event_id_uq UNIQUE (event_id),
  CONSTRAINT events_position_ck CHECK (global_position > 0 AND global_position <= 9007199254740991)
);

CREATE TABLE ${s}.streams (
  stream_id  text        COLLATE "C" NOT NULL,
  version    bigint      NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT streams_pk PRIMARY KEY (stream_id)
);

CREATE TABLE ${s}.idempotency_keys (
  scope         text        NOT NULL,
  key           text        NOT NULL,
  fingerprint   text        NOT NULL,
  stream_id     text        COLLATE "C" NOT NULL,
  first_version bigint      NOT NULL,
  last_version  bigint      NOT NULL,
  created_at    timestamptz NOT NULL,
  CONSTRAINT idempotency_keys_pk PRIMARY KEY (scope, key)
);

CREATE TABLE ${s}.snapshots (
  stream_id       text        COLLATE "C" NOT NULL,
  reducer_version integer     NOT NULL,
  version         bigint      NOT NULL,
  state           json        NOT NULL,
  created_at      timestamptz NOT NULL,
  CONSTRAINT snapshots_pk PRIMARY KEY (stream_id, reducer_version, version)
);

-- One round trip per append. Outcomes: appended | duplicate | key_reused | conflict (then
-- o_last_version is the actual version). Nothing is written unless the outcome is appended.
CREATE FUNCTION ${s}.append_events(
  p_stream_id   text,
  p_expected    bigint,  -- NULL: any version; 0: the stream must not exist; n: must be at n
  p_event_ids   text[],
  p_types       text[],
  p_parents     bigint[],
  p_data        json[],  -- json[], not one json document: json field operators reject escaped NUL characters
  p_metadata    json[],
  p_origin      bigint,  -- store_info.xid_origin
  p_scope       text,
  p_key         text,    -- NULL: no idempotency claim
  p_fingerprint text,
  OUT o_outcome       text,
  OUT o_stream_id     text,
  OUT o_first_version bigint,
  OUT o_last_version  bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_count       integer := coalesce(cardinality(p_event_ids), 0);
  v_current     bigint;
  v_conflict    boolean := false;
  v_fingerprint text;
  v_base        bigint;
BEGIN
  IF p_key IS NOT NULL THEN
    SELECT k.fingerprint, k.stream_id, k.first_version, k.last_version
      INTO v_fingerprint, o_stream_id, o_first_version, o_last_version
      FROM ${s}.idempotency_keys k WHERE k.scope = p_scope AND k.key = p_key;
    IF FOUND THEN
      o_outcome := CASE WHEN v_fingerprint = p_fingerprint THEN 'duplicate' ELSE 'key_reused' END;
      RETURN;
    END IF;
  END IF;

  -- The streams row is the per-stream lock: the UPDATE waits for a concurrent append to the
  -- same stream and re-checks the expected version against the version it committed.
  LOOP
    UPDATE ${s}.streams st SET version = st.version + v_count, updated_at = now()
     WHERE st.stream_id = p_stream_id AND (p_expected IS NULL OR st.version = p_expected)
    RETURNING st.version - v_count INTO v_current;
    EXIT WHEN FOUND;
    SELECT st.version INTO v_current FROM ${s}.streams st WHERE st.stream_id = p_stream_id;
    IF FOUND THEN
      -- Created or moved by a concurrent append since the UPDATE's snapshot: look again.
      CONTINUE WHEN p_expected IS NULL OR v_current = p_expected;
      v_conflict := true;
      EXIT;
    END IF;
    v_current := 0;
    IF p_expected IS NOT NULL AND p_expected <> 0 THEN
      v_conflict := true;
      EXIT;
    END IF;
    INSERT INTO ${s}.streams (stream_id, version, created_at, updated_at)
    VALUES (p_stream_id, v_count, now(), now())
    ON CONFLICT (stream_id) DO NOTHING;
    EXIT WHEN FOUND;
    -- A concurrent append created the stream and committed: look again.
  END LOOP;

  IF v_conflict THEN
    -- An identical keyed request may have won the race for this stream: answer as it did.
    IF p_key IS NOT NULL THEN
      SELECT k.fingerprint, k.stream_id, k.first_version, k.last_version
        INTO v_fingerprint, o_stream_id, o_first_version, o_last_version
        FROM ${s}.idempotency_keys k WHERE k.scope = p_scope AND k.key = p_key;
      IF FOUND THEN
        o_outcome := CASE WHEN v_fingerprint = p_fingerprint THEN 'duplicate' ELSE 'key_reused' END;
        RETURN;
      END IF;
    END IF;
    o_outcome := 'conflict';
    o_stream_id := p_stream_id;
    o_last_version := v_current;
    RETURN;
  END IF;

  IF v_count > 0 THEN
    -- The position is derived from this transaction's id (assigned by the write above).
    v_base := (pg_current_xact_id()::text::bigint - p_origin) * ${POSITION_SHIFT};
    INSERT INTO ${s}.events (global_position, stream_id, stream_version, event_id, type, parent_version, data, metadata)
    SELECT v_base + e.ordinal, p_stream_id, v_current + e.ordinal, e.event_id, e.type, e.parent_version, e.data, e.metadata
      FROM unnest(p_event_ids, p_types, p_parents, p_data, p_metadata)
           WITH ORDINALITY AS e(event_id, type, parent_version, data, metadata, ordinal);
  END IF;

  IF p_key IS NOT NULL THEN
    -- The primary key settles a race with an identical request on another stream (or with
    -- expected version "any"): the loser fails here, is rolled back and answers from the winner.
    INSERT INTO ${s}.idempotency_keys (scope, key, fingerprint, stream_id, first_version, last_version, created_at)
    VALUES (p_scope, p_key, p_fingerprint, p_stream_id, v_current + 1, v_current + v_count, now());
  END IF;

  o_outcome := 'appended';
  o_stream_id := p_stream_id;
  o_first_version := v_current + 1;
  o_last_version := v_current + v_count;
END;
$fn$;
`,
    },
    {
      version: 2,
      name: 'compact events rows: stream key, uuid event ids, fixed-width columns first',
      sql: `
-- Streams get a numeric key, which the events rows and their (stream, version) index carry
-- instead of the stream id text (streams keeps the only copy of it).
ALTER TABLE ${s}.streams ADD COLUMN id bigint GENERATED BY DEFAULT AS IDENTITY;
ALTER TABLE ${s}.streams ADD CONSTRAINT streams_id_uq UNIQUE (id);

-- Fixed-width columns first (no alignment padding); an event id that is a canonical lower-case
-- UUID is stored as uuid (16 bytes, also in its unique index), any other as text. Exactly one
-- of the two is set, so the two unique indexes together keep event ids unique across the store.
CREATE TABLE ${s}.events_v2 (
  global_position bigint NOT NULL,
  stream_key      bigint NOT NULL,
  stream_version  bigint NOT NULL,
  parent_version  bigint,
  event_uuid      uuid,
  type            text   NOT NULL,
  event_text      text,
  data            json   NOT NULL,
  metadata        json   NOT NULL
);
INSERT INTO ${s}.events_v2 (global_position, stream_key, stream_version, parent_version, event_uuid, type, event_text, data, metadata)
SELECT e.global_position, st.id, e.stream_version, e.parent_version,
       CASE WHEN e.event_id ~ '${UUID_PATTERN}' THEN e.event_id::uuid END,
       e.type,
       CASE WHEN e.event_id ~ '${UUID_PATTERN}' THEN NULL ELSE e.event_id END,
       e.data, e.metadata
  FROM ${s}.events e JOIN ${s}.streams st ON st.stream_id = e.stream_id
 ORDER BY e.global_position;
DO $check$
BEGIN
  IF (SELECT count(*) FROM ${s}.events) <> (SELECT count(*) FROM ${s}.events_v2) THEN
    RAISE EXCEPTION 'events without a streams row: migration 2 would lose them';
  END IF;
END
$check$;
DROP TABLE ${s}.events;
ALTER TABLE ${s}.events_v2 RENAME TO events;
ALTER TABLE ${s}.events
  ADD CONSTRAINT events_pk PRIMARY KEY (global_position),
  ADD CONSTRAINT events_stream_version_uq UNIQUE (stream_key, stream_version),
  ADD CONSTRAINT events_event_id_uq UNIQUE (event_uuid),
  ADD CONSTRAINT events_event_id_ck CHECK ((event_uuid IS NULL) <> (event_text IS NULL)),
  ADD CONSTRAINT events_position_ck CHECK (global_position > 0 AND global_position <= 9007199254740991);
-- Partial: a btree indexes NULLs too, and nearly every row has no text id.
CREATE UNIQUE INDEX events_event_text_uq ON ${s}.events (event_text) WHERE event_text IS NOT NULL;
-- The copied table starts without statistics (and autovacuum may be off).
ANALYZE ${s}.events;

DROP FUNCTION ${s}.append_events(text, bigint, text[], text[], bigint[], json[], json[], bigint, text, text, text);

-- As in migration 1, but the event ids come as two arrays (uuid or text, the other NULL) and
-- the rows carry the stream's key.
${compactAppendEvents(s, false)}`,
    },
    {
      version: 3,
      name: 'group commit: several appends in one transaction',
      sql: `
DROP FUNCTION ${s}.append_events(text, bigint, uuid[], text[], text[], bigint[], json[], json[], bigint, text, text, text);

-- As in migration 2, with the positions of an append placed after those other appends of the
-- same transaction used (they share its id, and so the high part of their positions).
${compactAppendEvents(s, true)}
-- Group commit: appends to several streams in one call and one transaction, in order. Each
-- answers as append_events does; an append that is not appended (conflict, duplicate, reused
-- key) writes nothing and does not stop the others. Events come flattened, p_counts[i] each.
CREATE FUNCTION ${s}.append_batch(
  p_streams      text[],
  p_expected     bigint[],
  p_counts       integer[],
  p_event_uuids  uuid[],
  p_event_texts  text[],
  p_types        text[],
  p_parents      bigint[],
  p_data         json[],
  p_metadata     json[],
  p_origin       bigint,
  p_scopes       text[],
  p_keys         text[],
  p_fingerprints text[]
) RETURNS TABLE (o_outcome text, o_stream_id text, o_first_version bigint, o_last_version bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_from   integer := 1;
  v_to     integer;
  v_offset integer := 0;
  r        record;
BEGIN
  FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
    v_to := v_from + p_counts[i] - 1;
    SELECT * INTO r FROM ${s}.append_events(
      p_streams[i], p_expected[i],
      p_event_uuids[v_from:v_to], p_event_texts[v_from:v_to], p_types[v_from:v_to],
      p_parents[v_from:v_to], p_data[v_from:v_to], p_metadata[v_from:v_to],
      p_origin, p_scopes[i], p_keys[i], p_fingerprints[i], v_offset);
    o_outcome := r.o_outcome;
    o_stream_id := r.o_stream_id;
    o_first_version := r.o_first_version;
    o_last_version := r.o_last_version;
    RETURN NEXT;
    IF r.o_outcome = 'appended' THEN
      v_offset := v_offset + p_counts[i];
    END IF;
    v_from := v_to + 1;
  END LOOP;
END;
$fn$;
`,
    },
    {
      version: 4,
      name: 'snapshot segments',
      sql: `
-- Parts of snapshots shared by later snapshots of the stream; segment_id names the content.
CREATE TABLE ${s}.snapshot_segments (
  stream_id  text        COLLATE "C" NOT NULL,
  segment_id text        COLLATE "C" NOT NULL,
  data       bytea       NOT NULL, -- deflated text (see snapshot-codec)
  created_at timestamptz NOT NULL,
  CONSTRAINT snapshot_segments_pk PRIMARY KEY (stream_id, segment_id)
);
`,
    },
  ];
}

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
  type: string,
  parentVersion: number | null,
  data: unknown,
  metadata: string | object,
];

/** The event in `row` from column `at` on (readAll's rows lead with two columns of their own). */
function toStored(row: EventTuple | unknown[], at = 0): StoredEvent {
  const streamId = row[at + 1] as string;
  return {
    eventId: row[at + 3] as string,
    type: row[at + 4] as string,
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
const backoff = (attempt: number) => Math.min(2 ** attempt, 10);

/** The connection string with its password (in the URL or as a parameter) replaced by `***`. */
export function maskConnectionString(connectionString: string): string {
  let masked = connectionString;
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    masked = url.toString();
  } catch {
    // Not a URL (e.g. `host=... password=...`): fall through to the parameter masking.
  }
  return masked.replace(/(password=)[^&\s]*/gi, '$1***');
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: { code?: unknown }[] } | null;
  if (typeof e?.code === 'string') return e.code;
  const inner = e?.errors?.find((x) => typeof x?.code === 'string');
  return inner ? String(inner.code) : undefined;
}

function unavailable(connectionString: string, error: unknown): PostgresUnavailableError {
  const at = maskConnectionString(connectionString);
  const code = errorCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (code === '3D000') {
    return new PostgresUnavailableError(
      `PostgreSQL at ${at} has no such database (3D000: ${detail}). Create it, or set DATABASE_URL to an existing database.`,
      { cause: error },
    );
  }
  if (code === '28P01' || code === '28000') {
    return new PostgresUnavailableError(`PostgreSQL at ${at} refused the login (${code}: ${detail}). Check the user and password in DATABASE_URL.`, {
      cause: error,
    });
  }
  const reason = code ?? (/timeout/i.test(detail) ? 'timeout' : detail);
  return new PostgresUnavailableError(`Cannot reach PostgreSQL at ${at} (${reason}). Is the server running and reachable? Set DATABASE_URL to point at it.`, {
    cause: error,
  });
}

interface AppendRequest {
  streamId: string;
  /** null: any version; 0: the stream must not exist. */
  expected: number | null;
  events: readonly NewEvent[];
  claim: AppendOptions['idempotency'];
}

type AppendRow = [outcome: string, streamId: string, firstVersion: number, lastVersion: number];

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
 * `(xmin - origin) * 2^16`, where xmin is its snapshot's oldest running transaction id. Every
 * transaction with a smaller id has finished (committed and visible, or aborted), so the set
 * of events below the bound is final; every transaction that can still commit has an id >= xmin,
 * so all its positions are above the bound, and above anything a reader has already seen. So
 * once a reader has seen position P, nothing below P can appear: page by page it sees every
 * committed event exactly once, in increasing position order. No locks serialize appends.
 * Positions are sparse (gaps of up to 2^16 per transaction), increasing, and below 2^53 for the
 * first 2^37 transaction ids after the schema was created.
 */
export class PostgresEventStore implements EventStore {
  private closed = false;
  private readonly sql: ReturnType<typeof statements>;
  /** Appends that arrive while others are in flight go together (see flushAppends). */
  private readonly appends: GroupCommitQueue<AppendRequest, AppendRow>;

  private constructor(
    readonly pool: Pool,
    readonly schema: string,
    private readonly origin: number,
    private readonly options: PostgresEventStoreOptions,
  ) {
    this.sql = statements(`"${schema}"`);
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
      return new PostgresEventStore(pool, schema, origin, options);
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
    return {
      ...this.sql.append,
      rowMode: 'array',
      values: [
        streamId,
        expected,
        events.map((e) => (UUID.test(e.eventId) ? e.eventId : null)),
        events.map((e) => (UUID.test(e.eventId) ? null : e.eventId)),
        events.map((e) => e.type),
        events.map((e) => e.parentVersion ?? null),
        events.map((e) => JSON.stringify(e.data ?? null)),
        events.map((e) => encodeMetadata(e.metadata, streamId)),
        this.origin,
        claim?.scope ?? null,
        claim?.key ?? null,
        claim?.fingerprint ?? null,
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
    const events = requests.flatMap((r) => r.events.map((e) => ({ e, streamId: r.streamId })));
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
          events.map(({ e }) => e.type),
          events.map(({ e }) => e.parentVersion ?? null),
          events.map(({ e }) => JSON.stringify(e.data ?? null)),
          events.map(({ e, streamId }) => encodeMetadata(e.metadata, streamId)),
          this.origin,
          requests.map((r) => r.claim?.scope ?? null),
          requests.map((r) => r.claim?.key ?? null),
          requests.map((r) => r.claim?.fingerprint ?? null),
        ],
      });
      return (result.rows as AppendRow[]).map((row) => ({ ok: true, value: row }));
    } catch (error) {
      if (!(error instanceof DatabaseError)) throw error;
      return Promise.all(requests.map((r) => settle(this.pool.query(this.appendQuery(r)).then((res) => res.rows[0] as AppendRow))));
    }
  }

  /** The test hook's path: an explicit transaction that waits for `hook` before COMMIT. */
  private async appendInTransaction(request: AppendRequest, hook: (streamId: string) => Promise<void>): Promise<AppendRow> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const row = (await client.query(this.appendQuery(request))).rows[0] as AppendRow;
      await hook(request.streamId);
      await client.query('COMMIT');
      client.release();
      return row;
    } catch (error) {
      await client.query('ROLLBACK').then(
        () => client.release(),
        (rollbackError: Error) => client.release(rollbackError),
      );
      throw error;
    }
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
    return result.rows.map((row) => toStored(row));
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
    for (let attempt = 0; ; attempt++) {
      const result = await this.pool.query<unknown[]>({ ...this.sql.readAll, rowMode: 'array', values: [options.after, options.limit, this.origin] });
      const first = result.rows[0];
      const bound = (first?.[0] as number | undefined) ?? 0;
      committedTail ??= (first?.[1] as number | null | undefined) ?? 0;
      const events: StoredEvent[] = [];
      for (const row of result.rows) if (row[2] !== null) events.push(toStored(row, 2));
      const settled = bound > committedTail || committedTail <= options.after;
      if (settled || events.length >= options.limit || Date.now() >= deadline) return events;
      await sleep(backoff(attempt));
    }
  }

  /** The highest position below the safe bound; waits like `readAll` for held-back commits. */
  async lastPosition(): Promise<number> {
    const deadline = Date.now() + (this.options.visibilityWaitMs ?? 100);
    let committedTail: number | undefined;
    for (let attempt = 0; ; attempt++) {
      const result = await this.pool.query<[number, number | null, number | null]>({ ...this.sql.lastPosition, rowMode: 'array', values: [this.origin] });
      const [bound, safe, tail] = result.rows[0] ?? [0, null, null];
      committedTail ??= tail ?? 0;
      if (bound > committedTail || Date.now() >= deadline) return safe ?? 0;
      await sleep(backoff(attempt));
    }
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
      values: [scope, key],
    });
    const row = result.rows[0];
    return row ? { scope: row[0], key: row[1], fingerprint: row[2], streamId: row[3], firstVersion: row[4], lastVersion: row[5] } : null;
  }

  async saveSnapshot(snapshot: Snapshot, segments: readonly SnapshotSegment[] = []): Promise<void> {
    const state = JSON.stringify(snapshot.state ?? null);
    if (segments.length === 0) {
      await this.pool.query({ ...this.sql.saveSnapshot, values: [snapshot.streamId, snapshot.reducerVersion, snapshot.version, state] });
      return;
    }
    // One statement: the segments and the snapshot that refers to them commit together.
    await this.pool.query({
      ...this.sql.saveSnapshotWithSegments,
      values: [snapshot.streamId, snapshot.reducerVersion, snapshot.version, state, segments.map((x) => x.id), segments.map((x) => encodeSegment(x.data))],
    });
  }

  /** One round trip: a first row for the snapshot (if any), then one per event of the tail. */
  async loadSnapshotAndTail(streamId: string, reducerVersion: number, version: number): Promise<SnapshotAndTail> {
    const result = await this.pool.query<unknown[]>({ ...this.sql.loadSnapshotAndTail, rowMode: 'array', values: [streamId, reducerVersion, version] });
    let snapshot: Snapshot | null = null;
    const events: StoredEvent[] = [];
    for (const row of result.rows) {
      if (row[0] === 0) snapshot = { streamId, version: row[1] as number, reducerVersion, state: row[2] };
      else events.push(toStored(row, 3));
    }
    return { snapshot, events };
  }

  async loadSnapshotSegments(streamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (ids.length === 0) return found;
    const result = await this.pool.query<[string, Buffer]>({ ...this.sql.loadSnapshotSegments, rowMode: 'array', values: [streamId, ids] });
    for (const [id, data] of result.rows) found.set(id, decodeSegment(data));
    return found;
  }

  async loadSnapshot(streamId: string, reducerVersion: number, atOrBefore: number): Promise<Snapshot | null> {
    const result = await this.pool.query<[number, unknown]>({ ...this.sql.loadSnapshot, rowMode: 'array', values: [streamId, reducerVersion, atOrBefore] });
    const row = result.rows[0];
    return row ? { streamId, version: row[0], reducerVersion, state: row[1] } : null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/** Named (prepared once per connection) statements over the quoted schema `s`. */
function statements(s: string) {
  // The safe bound: positions of transactions older than the snapshot's xmin ($origin is store_info.xid_origin).
  const bound = (origin: string) => `(SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::bigint - ${origin}::bigint) * ${POSITION_SHIFT})`;
  const named = (name: string, text: string) => ({ name: `rewind:${s}:${name}`, text });
  const eventId = `coalesce(e.event_text, e.event_uuid::text) AS event_id`;
  return {
    append: named(
      'append',
      `SELECT o_outcome, o_stream_id, o_first_version, o_last_version FROM ${s}.append_events($1::text, $2::bigint, $3::uuid[], $4::text[], $5::text[], $6::bigint[], $7::json[], $8::json[], $9::bigint, $10::text, $11::text, $12::text, 0)`,
    ),
    appendBatch: named(
      'appendBatch',
      `SELECT b.o_outcome, b.o_stream_id, b.o_first_version, b.o_last_version
         FROM ${s}.append_batch($1::text[], $2::bigint[], $3::integer[], $4::uuid[], $5::text[], $6::text[], $7::bigint[], $8::json[], $9::json[], $10::bigint, $11::text[], $12::text[], $13::text[])
              WITH ORDINALITY AS b(o_outcome, o_stream_id, o_first_version, o_last_version, n)
        ORDER BY b.n`,
    ),
    readStream: named(
      'readStream',
      `SELECT e.global_position, $1::text AS stream_id, e.stream_version, ${eventId}, e.type, e.parent_version, e.data, e.metadata
         FROM ${s}.events e
        WHERE e.stream_key = (SELECT st.id FROM ${s}.streams st WHERE st.stream_id = $1::text)
          AND e.stream_version >= $2::bigint AND e.stream_version <= $3::bigint
        ORDER BY e.stream_version
        LIMIT $4::bigint`,
    ),
    streamVersion: named('streamVersion', `SELECT version FROM ${s}.streams WHERE stream_id = $1::text`),
    // One row per event (or one row of NULLs when the page is empty), each led by the safe bound
    // and the highest committed position, visible or held back. The page is cut (index order,
    // LIMIT) before each row's stream id is looked up: a join inside the LIMIT could be planned
    // as a hash join that sorts the whole rest of the log for every page.
    readAll: named(
      'readAll',
      `SELECT h.bound, h.tail, e.global_position, (SELECT st.stream_id FROM ${s}.streams st WHERE st.id = e.stream_key) AS stream_id,
              e.stream_version, ${eventId}, e.type, e.parent_version, e.data, e.metadata
         FROM (SELECT ${bound('$3')} AS bound, (SELECT max(global_position) FROM ${s}.events) AS tail) h
         LEFT JOIN LATERAL (
           SELECT global_position, stream_key, stream_version, event_uuid, event_text, type, parent_version, data, metadata
             FROM ${s}.events
            WHERE global_position > $1::bigint AND global_position < h.bound
            ORDER BY global_position
            LIMIT $2::bigint) e ON true
        ORDER BY e.global_position`,
    ),
    lastPosition: named(
      'lastPosition',
      `SELECT h.bound,
              (SELECT max(global_position) FROM ${s}.events WHERE global_position < h.bound) AS safe,
              (SELECT max(global_position) FROM ${s}.events) AS tail
         FROM (SELECT ${bound('$1')} AS bound) h`,
    ),
    listStreams: named(
      'listStreams',
      `SELECT stream_id, version, created_at, updated_at
         FROM ${s}.streams
        WHERE stream_id >= $1::text AND stream_id < $2::text AND stream_id > $3::text
        ORDER BY stream_id
        LIMIT $4::bigint`,
    ),
    findIdempotency: named(
      'findIdempotency',
      `SELECT scope, key, fingerprint, stream_id, first_version, last_version FROM ${s}.idempotency_keys WHERE scope = $1::text AND key = $2::text`,
    ),
    saveSnapshot: named(
      'saveSnapshot',
      `INSERT INTO ${s}.snapshots (stream_id, reducer_version, version, state, created_at)
       VALUES ($1::text, $2::integer, $3::bigint, $4::json, now())
       ON CONFLICT (stream_id, reducer_version, version) DO UPDATE SET state = excluded.state, created_at = excluded.created_at`,
    ),
    saveSnapshotWithSegments: named(
      'saveSnapshotWithSegments',
      `WITH segments AS (
         INSERT INTO ${s}.snapshot_segments (stream_id, segment_id, data, created_at)
         SELECT $1::text, u.id, u.data, now() FROM unnest($5::text[], $6::bytea[]) AS u(id, data)
         ON CONFLICT (stream_id, segment_id) DO NOTHING)
       INSERT INTO ${s}.snapshots (stream_id, reducer_version, version, state, created_at)
       VALUES ($1::text, $2::integer, $3::bigint, $4::json, now())
       ON CONFLICT (stream_id, reducer_version, version) DO UPDATE SET state = excluded.state, created_at = excluded.created_at`,
    ),
    loadSnapshotSegments: named(
      'loadSnapshotSegments',
      `SELECT segment_id, data FROM ${s}.snapshot_segments WHERE stream_id = $1::text AND segment_id = ANY($2::text[])`,
    ),
    // Kind 0: the snapshot (version, state); kind 1: the events after it, up to $3.
    loadSnapshotAndTail: named(
      'loadSnapshotAndTail',
      `WITH snap AS MATERIALIZED (
         SELECT version, state FROM ${s}.snapshots
          WHERE stream_id = $1::text AND reducer_version = $2::integer AND version <= $3::bigint
          ORDER BY version DESC
          LIMIT 1)
       SELECT 0 AS kind, version, state, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM snap
       UNION ALL
       SELECT 1, e.stream_version, NULL, e.global_position, $1::text, e.stream_version, ${eventId}, e.type, e.parent_version, e.data, e.metadata
         FROM ${s}.events e
        WHERE e.stream_key = (SELECT st.id FROM ${s}.streams st WHERE st.stream_id = $1::text)
          AND e.stream_version > coalesce((SELECT version FROM snap), 0) AND e.stream_version <= $3::bigint
       ORDER BY 1, 2`,
    ),
    loadSnapshot: named(
      'loadSnapshot',
      `SELECT version, state FROM ${s}.snapshots
        WHERE stream_id = $1::text AND reducer_version = $2::integer AND version <= $3::bigint
        ORDER BY version DESC
        LIMIT 1`,
    ),
  };
}

/**
 * Applies pending numbered migrations under an advisory lock (concurrent openers wait, then see
 * them applied); returns the position origin. An up-to-date schema needs no DDL and no privilege
 * beyond reading it.
 */
async function migrate(client: PoolClient, schema: string, migrateTo = Number.MAX_SAFE_INTEGER): Promise<number> {
  const s = `"${schema}"`;
  const latest = Math.min(migrateTo, Math.max(...migrations(s).map((m) => m.version)));
  const current = async (): Promise<number> => {
    const exists = await client.query<{ t: string | null }>(`SELECT to_regclass($1::text)::text AS t`, [`${s}.schema_migrations`]);
    if (!exists.rows[0]?.t) return 0;
    const max = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${s}.schema_migrations`);
    return max.rows[0]?.v ?? 0;
  };
  if ((await current()) < latest) {
    await client.query('BEGIN');
    try {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('rewind.migrate'), hashtext($1::text))`, [schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
           version    integer     PRIMARY KEY,
           name       text        NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const applied = await current();
      for (const migration of migrations(s)) {
        if (migration.version <= applied || migration.version > latest) continue;
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
  const info = await client.query<{ xid_origin: number }>(`SELECT xid_origin FROM ${s}.store_info`);
  const origin = info.rows[0]?.xid_origin;
  if (origin === undefined) throw new Error(`${schema}.store_info is empty: the schema was not created by Rewind.`);
  return origin;
}
