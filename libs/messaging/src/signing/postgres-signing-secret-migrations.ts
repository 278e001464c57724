import type { MigrationSet } from '@rewind/event-store/postgres';

/**
 * The Kafka signing secrets' migrations (in `signing_secret_migrations`), applied under the
 * runner's advisory locks so that any number of processes can open the store at once. The first
 * is what the store used to run at first use, idempotent, so tables made by that code are adopted.
 */
export const signingSecretMigrations = (schema: string): MigrationSet => ({
  schema,
  table: 'signing_secret_migrations',
  lock: 'rewind.signing-secrets.migrate',
  migrations: (s) => [
    {
      version: 1,
      name: 'kafka signing secrets, each replaced secret with its own grace',
      sql: `
        CREATE TABLE IF NOT EXISTS ${s}.kafka_signing_keys (
          key_id     text PRIMARY KEY,
          tenant_id  text NOT NULL,
          name       text NOT NULL,
          secret     text NOT NULL,
          created_at timestamptz NOT NULL,
          revoked_at timestamptz
        );
        ALTER TABLE ${s}.kafka_signing_keys
          ADD COLUMN IF NOT EXISTS expires_at timestamptz,
          ADD COLUMN IF NOT EXISTS previous_secret text,
          ADD COLUMN IF NOT EXISTS previous_valid_until timestamptz;
        -- Every secret a rotation replaced, each with its own grace: a second rotation does not cut the
        -- first one's short (previous_secret held only the last one). previous_valid_until stays the last grace's end.
        CREATE TABLE IF NOT EXISTS ${s}.kafka_signing_previous_secrets (
          key_id      text NOT NULL REFERENCES ${s}.kafka_signing_keys (key_id) ON DELETE CASCADE,
          secret      text NOT NULL,
          valid_until timestamptz NOT NULL,
          PRIMARY KEY (key_id, secret)
        );
        -- Secrets replaced before that table existed move into it with their grace.
        WITH moved AS (
          UPDATE ${s}.kafka_signing_keys k SET previous_secret = NULL FROM ${s}.kafka_signing_keys old
          WHERE old.key_id = k.key_id AND old.previous_secret IS NOT NULL
          RETURNING k.key_id, old.previous_secret, old.previous_valid_until
        )
        INSERT INTO ${s}.kafka_signing_previous_secrets (key_id, secret, valid_until)
        SELECT key_id, previous_secret, previous_valid_until FROM moved WHERE previous_valid_until IS NOT NULL
        ON CONFLICT DO NOTHING;`,
    },
  ],
});
