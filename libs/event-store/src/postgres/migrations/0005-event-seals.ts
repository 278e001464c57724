import type { Migration } from './migration';

/** Migration 5 (frozen): event seals, the hash chains that make tampering with the log evident. */
export const migration5 = (s: string): Migration => ({
  version: 5,
  name: 'event seals',
  sql: `
-- Each event's link in its stream's hash chain, written by the sealer after the event commits.
CREATE TABLE ${s}.event_seals (
  global_position bigint NOT NULL,
  stream_id       text   COLLATE "C" NOT NULL,
  stream_version  bigint NOT NULL,
  hash            text   NOT NULL,
  CONSTRAINT event_seals_pk PRIMARY KEY (global_position),
  CONSTRAINT event_seals_stream_uq UNIQUE (stream_id, stream_version)
);
`,
});
