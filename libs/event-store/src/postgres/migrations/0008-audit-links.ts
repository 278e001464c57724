import { POSITION_SHIFT } from '../format';
import { appendBatch, compactAppendEvents } from './compact-append-events';
import type { Migration } from './migration';

/** Migration 8 (frozen): each event's audit link written with it; snapshots sealed. */
export const migration8 = (s: string): Migration => ({
  version: 8,
  name: 'audit links written with the events',
  sql: `
-- Each event's link in its stream's hash chain (32 bytes), computed by append_events in the
-- append's transaction. Rows written before keep NULL: their seals (event_seals) cover them.
ALTER TABLE ${s}.events ADD COLUMN link bytea;
-- A snapshot's seal: sha256(link of the event at its version, version, sha256(state JSON)).
ALTER TABLE ${s}.snapshots ADD COLUMN seal bytea;
-- From this position on, every event carries its link: every transaction that can still
-- commit an event without one has a smaller id, hence smaller positions.
ALTER TABLE ${s}.store_info ADD COLUMN links_from bigint;
UPDATE ${s}.store_info SET links_from = (pg_current_xact_id()::text::bigint - xid_origin) * ${POSITION_SHIFT};
DROP FUNCTION ${s}.append_batch(text[], bigint[], integer[], uuid[], text[], smallint[], bigint[], json[], json[], bigint, text[], text[], text[]);
DROP FUNCTION ${s}.append_events(text, bigint, uuid[], text[], smallint[], bigint[], json[], json[], bigint, text, text, text, integer);
-- As in migration 7, taking each event's digest and writing its link.
${compactAppendEvents(s, true, 'codes', true)}
${appendBatch(s, 'codes', true)}`,
});
