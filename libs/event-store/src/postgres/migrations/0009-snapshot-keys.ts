import type { Migration } from './migration';

/** Migration 9 (frozen): snapshot seals keyed. */
export const migration9 = (s: string): Migration => ({
  version: 9,
  name: 'snapshot seal keys',
  sql: `
-- Keys of snapshot seals (see snapshotTag): a seal is the sha256 of the link at the snapshot's
-- version, the version and the state's HMAC under one of these keys, so a row edited in the
-- database can no longer be resealed by recomputing a plain hash. The newest key seals; every
-- key kept verifies (a rotation adds one). The first one is drawn here (gen_random_uuid uses the
-- server's strong random source): 32 bytes, 244 of them random bits.
CREATE TABLE ${s}.snapshot_keys (
  key_id     serial PRIMARY KEY,
  secret     bytea NOT NULL CHECK (length(secret) >= 16),
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO ${s}.snapshot_keys (secret) VALUES (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
-- Snapshots sealed the unkeyed way would all be refused as altered: they are caches, dropped here
-- and written again at each session's next snapshot (their segments go with the next prune).
DELETE FROM ${s}.snapshots;
`,
});
