import type { Migration } from './migration';

/** Migration 4 (frozen): snapshot segments. */
export const migration4 = (s: string): Migration => ({
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
});
