import type { Pool } from 'pg';
import { applyMigrations, type MigrationSet } from '@rewind/event-store/postgres';
import {
  acceptance,
  alreadyRevoked,
  checkExpiry,
  checkGrace,
  generateKey,
  hashKey,
  keyIdOf,
  notFound,
  scopesOf,
  scopesOfRole,
  type ApiKeyRecord,
  type ApiKeyRole,
  type ApiKeyScope,
  type ApiKeyStore,
  type AuthenticatedKey,
  type CreateApiKeyInput,
} from './api-key-store';

interface Row {
  key_id: string;
  hash: string;
  tenant_id: string;
  name: string;
  role: ApiKeyRole;
  scopes: string | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  rotated_at: Date | null;
  previous_valid_until: Date | null;
}
/** A key's row found by one of its replaced secrets, with that secret's own end of grace. */
type PreviousRow = Row & { secret_valid_until: Date };
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const toRecord = (r: Row): ApiKeyRecord => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  name: r.name,
  scopes: r.scopes ? (r.scopes.split(',') as ApiKeyScope[]) : scopesOfRole(r.role),
  createdAt: r.created_at.toISOString(),
  expiresAt: iso(r.expires_at),
  revokedAt: iso(r.revoked_at),
  rotatedAt: iso(r.rotated_at),
  previousSecretValidUntil: iso(r.previous_valid_until),
});

/**
 * The API key tables' migrations (in `api_key_migrations`). The first is what the store used to
 * run at every open, all of it idempotent, so a schema made by that code takes it unchanged.
 */
export const apiKeyMigrations = (schema: string): MigrationSet => ({
  schema,
  table: 'api_key_migrations',
  lock: 'rewind.api-keys.migrate',
  migrations: (s) => [
    {
      version: 1,
      name: 'api keys and their change counter',
      sql: `
        CREATE TABLE IF NOT EXISTS ${s}.api_keys (
          key_id     text PRIMARY KEY,
          hash       text NOT NULL UNIQUE,
          tenant_id  text NOT NULL,
          name       text NOT NULL,
          role       text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        ALTER TABLE ${s}.api_keys
          ADD COLUMN IF NOT EXISTS scopes text,
          ADD COLUMN IF NOT EXISTS expires_at timestamptz,
          ADD COLUMN IF NOT EXISTS revoked_at timestamptz,
          ADD COLUMN IF NOT EXISTS rotated_at timestamptz,
          ADD COLUMN IF NOT EXISTS previous_hash text,
          ADD COLUMN IF NOT EXISTS previous_valid_until timestamptz;
        CREATE INDEX IF NOT EXISTS api_keys_previous_hash ON ${s}.api_keys (previous_hash) WHERE previous_hash IS NOT NULL;
        -- A counter every change to api_keys bumps, by trigger, so that a row revoked or even
        -- deleted by hand reaches every process's cache (CachedApiKeyStore polls it).
        CREATE TABLE IF NOT EXISTS ${s}.api_key_changes (id int PRIMARY KEY CHECK (id = 1), version bigint NOT NULL);
        INSERT INTO ${s}.api_key_changes (id, version) VALUES (1, 0) ON CONFLICT DO NOTHING;
        CREATE OR REPLACE FUNCTION ${s}.api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN UPDATE ${s}.api_key_changes SET version = version + 1 WHERE id = 1; RETURN NULL; END $$;
        CREATE OR REPLACE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${s}.api_keys
          FOR EACH STATEMENT EXECUTE FUNCTION ${s}.api_keys_changed();`,
    },
    {
      version: 2,
      name: 'every replaced secret keeps its own grace',
      // api_keys.previous_hash held only the last replaced secret: a second rotation cut the first one's grace short.
      sql: `
        CREATE TABLE IF NOT EXISTS ${s}.api_key_previous_secrets (
          hash        text PRIMARY KEY,
          key_id      text NOT NULL REFERENCES ${s}.api_keys (key_id) ON UPDATE CASCADE ON DELETE CASCADE,
          valid_until timestamptz NOT NULL
        );
        CREATE INDEX IF NOT EXISTS api_key_previous_secrets_key ON ${s}.api_key_previous_secrets (key_id);
        INSERT INTO ${s}.api_key_previous_secrets (hash, key_id, valid_until)
          SELECT previous_hash, key_id, previous_valid_until FROM ${s}.api_keys
          WHERE previous_hash IS NOT NULL AND previous_valid_until IS NOT NULL
          ON CONFLICT DO NOTHING;
        UPDATE ${s}.api_keys SET previous_hash = NULL WHERE previous_hash IS NOT NULL;
        CREATE OR REPLACE TRIGGER api_key_previous_secrets_changed AFTER UPDATE OR DELETE OR TRUNCATE ON ${s}.api_key_previous_secrets
          FOR EACH STATEMENT EXECUTE FUNCTION ${s}.api_keys_changed();`,
    },
  ],
});

/** API keys in PostgreSQL (the event store's pool and schema); only hashes are stored. */
export class PostgresApiKeyStore implements ApiKeyStore {
  private constructor(
    private readonly pool: Pool,
    private readonly table: string,
    private readonly changes: string,
    private readonly previous: string,
  ) {}

  static async open(pool: Pool, schema = 'rewind'): Promise<PostgresApiKeyStore> {
    const table = `"${schema}".api_keys`;
    const changes = `"${schema}".api_key_changes`;
    const client = await pool.connect();
    try {
      await applyMigrations(client, apiKeyMigrations(schema));
    } finally {
      client.release();
    }
    // Ids of configured keys used to be a prefix of the secret's hash; give them random ones.
    await pool.query(`UPDATE ${table} SET key_id = substr(md5(random()::text || clock_timestamp()::text), 1, 12) WHERE key_id = substr(hash, 1, 12)`);
    return new PostgresApiKeyStore(pool, table, changes, `"${schema}".api_key_previous_secrets`);
  }

  async lookup(presentedKey: string): Promise<{ record: ApiKeyRecord; replaced: boolean } | null> {
    const hash = hashKey(presentedKey);
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE hash = $1`, [hash]);
    if (rows[0]) return { record: toRecord(rows[0]), replaced: false };
    const previous = await this.byPreviousSecret(hash);
    return previous ? { record: toRecord(previous), replaced: true } : null;
  }

  async authenticate(presentedKey: string): Promise<AuthenticatedKey | null> {
    const hash = hashKey(presentedKey);
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE hash = $1`, [hash]);
    if (rows[0]) return acceptance(toRecord(rows[0]), false);
    const previous = await this.byPreviousSecret(hash);
    return previous ? acceptance({ ...toRecord(previous), previousSecretValidUntil: iso(previous.secret_valid_until) }, true) : null;
  }

  private async byPreviousSecret(hash: string): Promise<PreviousRow | undefined> {
    const { rows } = await this.pool.query<PreviousRow>(
      `SELECT k.*, p.valid_until AS secret_valid_until FROM ${this.previous} p JOIN ${this.table} k ON k.key_id = p.key_id WHERE p.hash = $1`,
      [hash],
    );
    return rows[0];
  }

  async create(input: CreateApiKeyInput) {
    const scopes = scopesOf(input);
    const expiresAt = checkExpiry(input.expiresAt);
    const { key, keyId } = input.plaintext !== undefined ? { key: input.plaintext, keyId: keyIdOf(input.plaintext) } : generateKey();
    const hash = hashKey(key);
    // A configured secret already known — even revoked or rotated away — is left as it is.
    const { rows } = await this.pool.query<Row>(
      `INSERT INTO ${this.table} (key_id, hash, tenant_id, name, role, scopes, created_at, expires_at)
       SELECT $1, $2, $3, $4, $5, $6, now(), $7
       WHERE NOT EXISTS (SELECT 1 FROM ${this.table} WHERE hash = $2) AND NOT EXISTS (SELECT 1 FROM ${this.previous} WHERE hash = $2)
       ON CONFLICT DO NOTHING RETURNING *`,
      [keyId, hash, input.tenantId, input.name, scopes.includes('admin') ? 'admin' : 'agent', scopes.join(','), expiresAt],
    );
    if (rows[0]) return { key, record: toRecord(rows[0]) };
    const existing = (await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE hash = $1`, [hash])).rows[0] ?? (await this.byPreviousSecret(hash));
    return { key, record: toRecord(existing!) };
  }

  async get(keyId: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE key_id = $1`, [keyId]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  private async require(keyId: string, live: boolean): Promise<ApiKeyRecord> {
    const record = await this.get(keyId);
    if (!record) throw notFound(keyId);
    if (live && record.revokedAt !== null) throw alreadyRevoked(keyId);
    return record;
  }

  async revoke(keyId: string): Promise<ApiKeyRecord> {
    const { rows } = await this.pool.query<Row>(`UPDATE ${this.table} SET revoked_at = coalesce(revoked_at, now()) WHERE key_id = $1 RETURNING *`, [keyId]);
    if (!rows[0]) throw notFound(keyId);
    return toRecord(rows[0]);
  }

  async rotate(keyId: string, graceSeconds: number) {
    checkGrace(graceSeconds);
    const { key } = generateKey(keyId);
    // The replaced secret keeps its own grace, beside those of earlier rotations. Ended ones stay (they
    // authenticate no more): a replaced secret configured again (REWIND_ADMIN_KEY) is then still known as replaced.
    const { rows } = await this.pool.query<Row>(
      `WITH replaced AS (
         SELECT key_id, hash FROM ${this.table} WHERE key_id = $1 AND revoked_at IS NULL FOR UPDATE
       ), kept AS (
         INSERT INTO ${this.previous} (hash, key_id, valid_until)
         SELECT hash, key_id, now() + make_interval(secs => $2) FROM replaced
         ON CONFLICT (hash) DO UPDATE SET valid_until = excluded.valid_until
       )
       UPDATE ${this.table} k SET hash = $3, rotated_at = now(),
         previous_valid_until = greatest(CASE WHEN k.previous_valid_until > now() THEN k.previous_valid_until END, now() + make_interval(secs => $2))
       FROM replaced WHERE k.key_id = replaced.key_id RETURNING k.*`,
      [keyId, graceSeconds, hashKey(key)],
    );
    if (!rows[0]) await this.require(keyId, true);
    return { key, record: toRecord(rows[0]!) };
  }

  async setExpiry(keyId: string, expiresAt: string | null): Promise<ApiKeyRecord> {
    const at = checkExpiry(expiresAt);
    const { rows } = await this.pool.query<Row>(`UPDATE ${this.table} SET expires_at = $2 WHERE key_id = $1 AND revoked_at IS NULL RETURNING *`, [keyId, at]);
    if (!rows[0]) await this.require(keyId, true);
    return toRecord(rows[0]!);
  }

  async list(tenantId?: string): Promise<ApiKeyRecord[]> {
    const { rows } = tenantId
      ? await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE tenant_id = $1 ORDER BY created_at`, [tenantId])
      : await this.pool.query<Row>(`SELECT * FROM ${this.table} ORDER BY created_at`);
    return rows.map(toRecord);
  }

  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${this.table}`);
    return Number(rows[0]!.n);
  }

  async changeVersion(): Promise<number> {
    const { rows } = await this.pool.query<{ version: string }>(`SELECT version FROM ${this.changes} WHERE id = 1`);
    return Number(rows[0]!.version);
  }

  /** The pool belongs to the event store, which closes it. */
  async close(): Promise<void> {}
}
