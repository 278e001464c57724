import { compactAppendEvents } from './compact-append-events';
import type { Migration } from './migration';

/** Migration 3 (frozen): group commit. */
export const migration3 = (s: string): Migration => ({
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
});
