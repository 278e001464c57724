import { POSITION_SHIFT } from './format';

/** Named (prepared once per connection) statements over the quoted schema `s`. */
export function statements(s: string) {
  // The safe bound: positions of transactions older than the oldest transaction of THIS database
  // that may still commit ($origin is store_info.xid_origin). A snapshot's xmin spans the whole
  // server, so a transaction left open in another database would hold every reader back for as
  // long as it runs (issue 38): an in-progress id is skipped when the activity statistics (or
  // pg_prepared_xacts) places it in another database, since a connection can only write to its own
  // database. An id found nowhere (it finished between the two reads, or the role may not see it)
  // still holds the bound: the next look settles it. With none left, the bound is the snapshot's xmax.
  const bound = (origin: string) => `(SELECT (coalesce(
      (SELECT min(x) FROM pg_snapshot_xip(c.snap) x
        WHERE NOT EXISTS (SELECT 1 FROM pg_stat_get_activity(NULL) a
                           WHERE a.backend_xid::text::bigint = x::text::bigint % 4294967296 AND a.datid IS DISTINCT FROM c.db)
          AND NOT EXISTS (SELECT 1 FROM pg_prepared_xacts p
                           WHERE p.transaction::text::bigint = x::text::bigint % 4294967296 AND p.database <> current_database())),
      pg_snapshot_xmax(c.snap))::text::bigint - ${origin}::bigint) * ${POSITION_SHIFT}
     FROM (SELECT pg_current_snapshot() AS snap, (SELECT oid FROM pg_database WHERE datname = current_database()) AS db) c)`;
  const named = (name: string, text: string) => ({ name: `rewind:${s}:${name}`, text });
  const eventId = `coalesce(e.event_text, e.event_uuid::text) AS event_id`;
  // The link of stream $1's event at `version` (a snapshot is sealed to it).
  const linkAt = (version: string) =>
    `(SELECT l.link FROM ${s}.events l WHERE l.stream_key = (SELECT st.id FROM ${s}.streams st WHERE st.stream_id = $1::text) AND l.stream_version = ${version})`;
  // sha256(link at the version ‖ version ‖ $6, the state's keyed tag): see snapshotSeal and snapshotTag.
  const snapshotSeal = `sha256(coalesce(${linkAt('$3::bigint')}, '\\x${'00'.repeat(32)}'::bytea) || int8send($3::bigint) || $6::bytea)`;
  return {
    append: named(
      'append',
      `SELECT o_outcome, o_stream_id, o_first_version, o_last_version FROM ${s}.append_events($1::text, $2::bigint, $3::uuid[], $4::text[], $5::smallint[], $6::bigint[], $7::json[], $8::json[], $9::bigint, $10::text, $11::text, $12::text, 0, $13::bytea[])`,
    ),
    appendBatch: named(
      'appendBatch',
      `SELECT b.o_outcome, b.o_stream_id, b.o_first_version, b.o_last_version
         FROM ${s}.append_batch($1::text[], $2::bigint[], $3::integer[], $4::uuid[], $5::text[], $6::smallint[], $7::bigint[], $8::json[], $9::json[], $10::bigint, $11::text[], $12::text[], $13::text[], $14::bytea[])
              WITH ORDINALITY AS b(o_outcome, o_stream_id, o_first_version, o_last_version, n)
        ORDER BY b.n`,
    ),
    readStream: named(
      'readStream',
      `SELECT e.global_position, $1::text AS stream_id, e.stream_version, ${eventId}, e.type, e.parent_version, e.data, e.metadata, e.type_code
         FROM ${s}.events e
        WHERE e.stream_key = (SELECT st.id FROM ${s}.streams st WHERE st.stream_id = $1::text)
          AND e.stream_version >= $2::bigint AND e.stream_version <= $3::bigint
        ORDER BY e.stream_version
        LIMIT $4::bigint`,
    ),
    // Codes of these type names, registering the new ones (migration 7); all codes, to learn those others registered.
    registerEventTypes: named('registerEventTypes', `SELECT o_name, o_code FROM ${s}.register_event_types($1::text[])`),
    eventTypes: named('eventTypes', `SELECT name, code FROM ${s}.event_types`),
    streamVersion: named('streamVersion', `SELECT version FROM ${s}.streams WHERE stream_id = $1::text`),
    // One row per event (or one row of NULLs when the page is empty), each led by the safe bound
    // and the highest committed position, visible or held back. The page is cut (index order,
    // LIMIT) before each row's stream id is looked up: a join inside the LIMIT could be planned
    // as a hash join that sorts the whole rest of the log for every page.
    readAll: named(
      'readAll',
      `SELECT h.bound, h.tail, e.global_position, (SELECT st.stream_id FROM ${s}.streams st WHERE st.id = e.stream_key) AS stream_id,
              e.stream_version, ${eventId}, e.type, e.parent_version, e.data, e.metadata, e.type_code
         FROM (SELECT ${bound('$3')} AS bound, (SELECT max(global_position) FROM ${s}.events) AS tail) h
         LEFT JOIN LATERAL (
           SELECT global_position, stream_key, stream_version, event_uuid, event_text, type, parent_version, data, metadata, type_code
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
    committedTail: named('committedTail', `SELECT max(global_position) FROM ${s}.events`),
    countBetween: named('countBetween', `SELECT count(*) FROM ${s}.events WHERE global_position > $1::bigint AND global_position <= $2::bigint`),
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
      `INSERT INTO ${s}.snapshots (stream_id, reducer_version, version, state, state_deflated, created_at, seal)
       VALUES ($1::text, $2::integer, $3::bigint, $4::json, $5::bytea, now(), ${snapshotSeal})
       ON CONFLICT (stream_id, reducer_version, version) DO UPDATE
         SET state = excluded.state, state_deflated = excluded.state_deflated, created_at = excluded.created_at, seal = excluded.seal`,
    ),
    saveSnapshotWithSegments: named(
      'saveSnapshotWithSegments',
      `WITH segments AS (
         INSERT INTO ${s}.snapshot_segments (stream_id, segment_id, data, created_at)
         SELECT $1::text, u.id, u.data, now() FROM unnest($7::text[], $8::bytea[]) AS u(id, data)
         ON CONFLICT (stream_id, segment_id) DO NOTHING)
       INSERT INTO ${s}.snapshots (stream_id, reducer_version, version, state, state_deflated, created_at, seal)
       VALUES ($1::text, $2::integer, $3::bigint, $4::json, $5::bytea, now(), ${snapshotSeal})
       ON CONFLICT (stream_id, reducer_version, version) DO UPDATE
         SET state = excluded.state, state_deflated = excluded.state_deflated, created_at = excluded.created_at, seal = excluded.seal`,
    ),
    loadSnapshotSegments: named(
      'loadSnapshotSegments',
      `SELECT segment_id, data FROM ${s}.snapshot_segments WHERE stream_id = $1::text AND segment_id = ANY($2::text[])`,
    ),
    // Kind 0: the snapshot (version, state as JSON text or deflated, its seal, the link at its version); kind 1: the events after it, up to $3.
    loadSnapshotAndTail: named(
      'loadSnapshotAndTail',
      `WITH snap AS MATERIALIZED (
         SELECT version, state::text AS state, state_deflated, seal FROM ${s}.snapshots
          WHERE stream_id = $1::text AND reducer_version = $2::integer AND version <= $3::bigint
          ORDER BY version DESC
          LIMIT 1)
       SELECT 0 AS kind, version, state, state_deflated, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL::smallint, seal, ${linkAt('version')} FROM snap
       UNION ALL
       SELECT 1, e.stream_version, NULL, NULL, e.global_position, $1::text, e.stream_version, ${eventId}, e.type, e.parent_version, e.data, e.metadata, e.type_code, NULL, NULL
         FROM ${s}.events e
        WHERE e.stream_key = (SELECT st.id FROM ${s}.streams st WHERE st.stream_id = $1::text)
          AND e.stream_version > coalesce((SELECT version FROM snap), 0) AND e.stream_version <= $3::bigint
       ORDER BY 1, 2`,
    ),
    loadSnapshot: named(
      'loadSnapshot',
      `SELECT version, state::text, state_deflated, seal, ${linkAt('version')} FROM ${s}.snapshots
        WHERE stream_id = $1::text AND reducer_version = $2::integer AND version <= $3::bigint
        ORDER BY version DESC
        LIMIT 1`,
    ),
  };
}

export type Statements = ReturnType<typeof statements>;
