import type { MigrationSet } from '@rewind/event-store/postgres';

/**
 * The data key tables' migrations (in `data_key_migrations`), applied under the runner's advisory
 * locks so that any number of processes can open the store at once (issue 38: three processes
 * opening a fresh database collided in `CREATE TABLE IF NOT EXISTS`). The first is what the store
 * used to run at every open, idempotent, so tables made by that code are adopted.
 */
export const dataKeyMigrations = (schema: string): MigrationSet => ({
  schema,
  table: 'data_key_migrations',
  lock: 'rewind.data-keys.migrate',
  migrations: (s) => [
    {
      version: 1,
      name: 'data keys, encryption and retention policies',
      sql: `
        CREATE TABLE IF NOT EXISTS ${s}.data_keys (
          key_id      text PRIMARY KEY,
          tenant_id   text NOT NULL,
          session_id  text NOT NULL,
          wrapped     text,
          created_at  timestamptz NOT NULL DEFAULT now(),
          shredded_at timestamptz,
          shredded_by text,
          UNIQUE (tenant_id, session_id)
        );
        CREATE TABLE IF NOT EXISTS ${s}.encryption_policies (
          tenant_id text NOT NULL,
          kind      text NOT NULL,
          name      text NOT NULL,
          paths     text NOT NULL,
          PRIMARY KEY (tenant_id, kind, name)
        );
        CREATE TABLE IF NOT EXISTS ${s}.retention_policies (tenant_id text PRIMARY KEY, inactive_days integer NOT NULL);`,
    },
  ],
});
