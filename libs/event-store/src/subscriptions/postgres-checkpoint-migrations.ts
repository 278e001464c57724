import type { MigrationSet } from '../postgres/migrations';

/**
 * The checkpoint table's migrations (in `checkpoint_migrations`), applied under the runner's
 * advisory locks so that any number of processes can open the store at once. The first is what
 * the store used to run at every open, idempotent, so a table made by that code is adopted.
 */
export const checkpointMigrations = (schema: string): MigrationSet => ({
  schema,
  table: 'checkpoint_migrations',
  lock: 'rewind.checkpoints.migrate',
  migrations: (s) => [
    {
      version: 1,
      name: 'subscriber checkpoints and leases',
      sql: `
        CREATE TABLE IF NOT EXISTS ${s}.subscriber_checkpoints (
          name        text PRIMARY KEY,
          position    bigint NOT NULL,
          owner       text,
          lease_until bigint NOT NULL DEFAULT 0,
          updated_at  timestamptz NOT NULL DEFAULT now()
        );`,
    },
  ],
});
