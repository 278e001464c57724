import { POSITION_SHIFT } from '../format';
import type { Migration } from './migration';

/** Migration 1 (frozen): the tables and the first append function. */
export const migration1 = (s: string): Migration => ({
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
});
