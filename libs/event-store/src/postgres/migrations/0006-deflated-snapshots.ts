import type { Migration } from './migration';

/** Migration 6 (frozen): snapshots stored deflated. */
export const migration6 = (s: string): Migration => ({
  version: 6,
  name: 'deflated snapshots',
  sql: `
-- A snapshot's state is stored either as JSON (rows written before, and small states) or as
-- deflated JSON (see snapshot-codec): deflate takes a snapshot to about half of what pglz
-- makes of it. Already compressed, it is never given to pglz again (storage EXTERNAL).
ALTER TABLE ${s}.snapshots
  ALTER COLUMN state DROP NOT NULL,
  ADD COLUMN state_deflated bytea,
  ADD CONSTRAINT snapshots_state_ck CHECK ((state IS NULL) <> (state_deflated IS NULL));
ALTER TABLE ${s}.snapshots ALTER COLUMN state_deflated SET STORAGE EXTERNAL;
`,
});
