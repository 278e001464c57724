import { POSITION_SHIFT } from '../format';

/**
 * How append_events takes event types: as names stored in `events.type` (migrations 2, 3), or
 * as codes of `event_types` stored in `events.type_code` (migration 7).
 */
export type TypeForm = 'names' | 'codes';

/**
 * append_events for the compact events layout (migration 2); `withOffset` (migration 3) places
 * an append's positions after the ordinals other appends of the same transaction used; `types`
 * 'codes' (migration 7) takes type codes. Frozen with the migrations that use it: the defaults
 * generate exactly what migrations 2 and 3 were released with.
 */
export function compactAppendEvents(s: string, withOffset: boolean, types: TypeForm = 'names', links = false): string {
  const codes = types === 'codes';
  const typesParam = codes ? 'p_type_codes' : 'p_types';
  return `CREATE FUNCTION ${s}.append_events(
  p_stream_id   text,
  p_expected    bigint,  -- NULL: any version; 0: the stream must not exist; n: must be at n
  p_event_uuids uuid[],
  p_event_texts text[],
  ${codes ? 'p_type_codes smallint[],' : 'p_types       text[],'}
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
  }${
    links
      ? `
  p_digests     bytea[], -- eventDigest of each event (migration 8): its link is computed here`
      : ''
  }
  OUT o_outcome       text,
  OUT o_stream_id     text,
  OUT o_first_version bigint,
  OUT o_last_version  bigint
) LANGUAGE plpgsql${
    links
      ? `
-- The previous link is read by (stream_key, stream_version): a plan cached while the table was
-- small would scan it on every append for the rest of the connection's life.
SET enable_seqscan = off`
      : ''
  } AS $fn$
DECLARE
  v_count       integer := coalesce(cardinality(${typesParam}), 0);
  v_current     bigint;
  v_key         bigint;
  v_conflict    boolean := false;
  v_fingerprint text;
  v_base        bigint;${
    links
      ? `
  v_link        bytea;
  v_links       bytea[];`
      : ''
  }
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
    v_base := (pg_current_xact_id()::text::bigint - p_origin) * ${POSITION_SHIFT};${
      links
        ? `
    -- Each event's link in its stream's chain (see eventLink), in this transaction: the previous
    -- event of the stream is committed (its streams row was locked above) or in this transaction.
    v_link := CASE WHEN v_current = 0 THEN NULL
                   ELSE (SELECT e.link FROM ${s}.events e WHERE e.stream_key = v_key AND e.stream_version = v_current) END;
    v_link := coalesce(v_link, '\\x${'00'.repeat(32)}'::bytea);
    FOR i IN 1 .. v_count LOOP
      v_link := sha256(v_link || int8send(v_base + ${withOffset ? 'p_offset + ' : ''}i) || int8send(v_current + i) || p_digests[i]);
      v_links[i] := v_link;
    END LOOP;`
        : ''
    }
    INSERT INTO ${s}.events (global_position, stream_key, stream_version, parent_version, event_uuid, ${codes ? 'type_code' : 'type'}, event_text, data, metadata${links ? ', link' : ''})
    SELECT v_base + ${withOffset ? 'p_offset + ' : ''}e.ordinal, v_key, v_current + e.ordinal, e.parent_version, e.event_uuid, e.${codes ? 'type_code' : 'type'}, e.event_text, e.data, e.metadata${links ? ', e.link' : ''}
      FROM unnest(p_event_uuids, p_event_texts, ${typesParam}, p_parents, p_data, p_metadata${links ? ', v_links' : ''})
           WITH ORDINALITY AS e(event_uuid, event_text, ${codes ? 'type_code' : 'type'}, parent_version, data, metadata, ${links ? 'link, ' : ''}ordinal);
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

/**
 * append_batch (migration 3): appends to several streams in one call, each through
 * append_events; `types` as in compactAppendEvents (migration 7 takes codes). Frozen likewise.
 */
export function appendBatch(s: string, types: TypeForm = 'names', links = false): string {
  const codes = types === 'codes';
  return `CREATE FUNCTION ${s}.append_batch(
  p_streams      text[],
  p_expected     bigint[],
  p_counts       integer[],
  p_event_uuids  uuid[],
  p_event_texts  text[],
  ${codes ? 'p_type_codes   smallint[],' : 'p_types        text[],'}
  p_parents      bigint[],
  p_data         json[],
  p_metadata     json[],
  p_origin       bigint,
  p_scopes       text[],
  p_keys         text[],
  p_fingerprints text[]${links ? ',\n  p_digests      bytea[]' : ''}
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
      p_event_uuids[v_from:v_to], p_event_texts[v_from:v_to], ${codes ? 'p_type_codes' : 'p_types'}[v_from:v_to],
      p_parents[v_from:v_to], p_data[v_from:v_to], p_metadata[v_from:v_to],
      p_origin, p_scopes[i], p_keys[i], p_fingerprints[i], v_offset${links ? ', p_digests[v_from:v_to]' : ''});
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
`;
}
