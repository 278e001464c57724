import type { MemoryMigration } from './memory-migration';

/** Memory migration 1 (frozen): memory policies, shared by every API process and worker of a PostgreSQL deployment. */
export const memoryMigration1 = (s: string): MemoryMigration => ({
  version: 1,
  name: 'memory policies',
  sql: `
-- '' as session_id stands for "the whole tenant" (a primary key column cannot be NULL).
CREATE TABLE ${s}.memory_policies (
  tenant_id  text        NOT NULL,
  session_id text        NOT NULL,
  policy     text        NOT NULL CONSTRAINT memory_policies_policy_ck CHECK (policy IN ('persistent', 'none')),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT memory_policies_pk PRIMARY KEY (tenant_id, session_id)
);
`,
});
