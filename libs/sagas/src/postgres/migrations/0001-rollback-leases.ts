import type { Migration } from '@rewind/event-store/postgres';

/** Saga migration 1 (frozen): the leases on unfinished rollbacks, one holder at a time among every API process and worker. */
export const sagaMigration1 = (s: string): Migration => ({
  version: 1,
  name: 'rollback leases',
  sql: `
-- A row while a process carries a rollback out; deleted when it stops. expires_at is the
-- database's clock, so the hosts' clocks never decide who holds a lease.
CREATE TABLE ${s}.rollback_leases (
  tenant_id   text        NOT NULL,
  rollback_id text        NOT NULL,
  holder      text        NOT NULL,
  expires_at  timestamptz NOT NULL,
  CONSTRAINT rollback_leases_pk PRIMARY KEY (tenant_id, rollback_id)
);
`,
});
