import { addMissingColumns, applySqliteMigrations, openSqliteFile, type SqliteMigrationSet } from '@rewind/event-store/sqlite';
import type Database from 'better-sqlite3';
import {
  acceptance,
  alreadyRevoked,
  checkExpiry,
  checkGrace,
  generateKey,
  hashKey,
  keyIdOf,
  newKeyRecord,
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
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  rotated_at: string | null;
  previous_hash: string | null;
  previous_valid_until: string | null;
}
/** A key's row found by one of its replaced secrets, with that secret's own end of grace. */
type PreviousRow = Row & { secret_valid_until: string };
const toRecord = (r: Row): ApiKeyRecord => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  name: r.name,
  scopes: r.scopes ? (r.scopes.split(',') as ApiKeyScope[]) : scopesOfRole(r.role),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  rotatedAt: r.rotated_at,
  previousSecretValidUntil: r.previous_valid_until,
});

/** Columns added after the first release, for files created before them. */
const LATER_COLUMNS = ['scopes', 'expires_at', 'revoked_at', 'rotated_at', 'previous_hash', 'previous_valid_until'];

/**
 * The API key tables' migrations (store `api-keys` in the file's schema_versions), as the
 * PostgreSQL store's. They are what the store used to run at every open, idempotent, so a file
 * made by that code is adopted as it is.
 */
const API_KEY_MIGRATIONS: SqliteMigrationSet = {
  store: 'api-keys',
  migrations: [
    {
      version: 1,
      name: 'api keys and their change counter',
      up: (db) => {
        db.exec(`CREATE TABLE IF NOT EXISTS api_keys (
          key_id     TEXT PRIMARY KEY,
          hash       TEXT NOT NULL UNIQUE,
          tenant_id  TEXT NOT NULL,
          name       TEXT NOT NULL,
          role       TEXT NOT NULL,
          created_at TEXT NOT NULL
        )`);
        addMissingColumns(db, 'api_keys', LATER_COLUMNS);
        // A counter every change to api_keys bumps, by trigger, so that a row revoked or even
        // deleted by hand reaches every process's cache (CachedApiKeyStore polls it).
        db.exec(`
          CREATE TABLE IF NOT EXISTS api_key_changes (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
          INSERT OR IGNORE INTO api_key_changes (id, version) VALUES (1, 0);
          CREATE TRIGGER IF NOT EXISTS api_keys_changed_on_update AFTER UPDATE ON api_keys BEGIN UPDATE api_key_changes SET version = version + 1 WHERE id = 1; END;
          CREATE TRIGGER IF NOT EXISTS api_keys_changed_on_delete AFTER DELETE ON api_keys BEGIN UPDATE api_key_changes SET version = version + 1 WHERE id = 1; END;
          CREATE TRIGGER IF NOT EXISTS api_keys_changed_on_insert AFTER INSERT ON api_keys BEGIN UPDATE api_key_changes SET version = version + 1 WHERE id = 1; END;
          CREATE INDEX IF NOT EXISTS api_keys_previous_hash ON api_keys (previous_hash) WHERE previous_hash IS NOT NULL;`);
      },
    },
    {
      version: 2,
      name: 'every replaced secret keeps its own grace',
      // api_keys.previous_hash held only the last replaced secret: a second rotation cut the first one's grace short.
      up: `
        CREATE TABLE IF NOT EXISTS api_key_previous_secrets (
          hash        TEXT PRIMARY KEY,
          key_id      TEXT NOT NULL,
          valid_until TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS api_key_previous_secrets_key ON api_key_previous_secrets (key_id);
        CREATE TRIGGER IF NOT EXISTS api_key_previous_secrets_changed_on_update AFTER UPDATE ON api_key_previous_secrets BEGIN UPDATE api_key_changes SET version = version + 1 WHERE id = 1; END;
        CREATE TRIGGER IF NOT EXISTS api_key_previous_secrets_changed_on_delete AFTER DELETE ON api_key_previous_secrets BEGIN UPDATE api_key_changes SET version = version + 1 WHERE id = 1; END;
        -- Secrets replaced before this table existed move into it, with their grace.
        INSERT OR IGNORE INTO api_key_previous_secrets (hash, key_id, valid_until)
          SELECT previous_hash, key_id, previous_valid_until FROM api_keys WHERE previous_hash IS NOT NULL AND previous_valid_until IS NOT NULL;
        UPDATE api_keys SET previous_hash = NULL WHERE previous_hash IS NOT NULL;`,
    },
  ],
};

/** API keys in the embedded SQLite file (its own connection; WAL lets it share the file). */
export class SqliteApiKeyStore implements ApiKeyStore {
  private readonly db: Database.Database;
  /** Prepared once: authentication runs on every request that misses the cache. */
  private readonly byHash: Database.Statement<[string], Row>;
  private readonly byPreviousHash: Database.Statement<[string], PreviousRow>;
  private readonly version: Database.Statement<[], { version: number }>;

  constructor(filename: string) {
    this.db = openSqliteFile(filename, 'FULL');
    applySqliteMigrations(this.db, API_KEY_MIGRATIONS);
    // Ids of configured keys used to be a prefix of the secret's hash; give them random ones.
    this.db.transaction(() => {
      const renamed = this.db
        .prepare<[], { old_id: string; hash: string }>('SELECT key_id AS old_id, hash FROM api_keys WHERE key_id = substr(hash, 1, 12)')
        .all();
      for (const { old_id: oldId } of renamed) {
        const newId = this.db.prepare<[], { id: string }>('SELECT lower(hex(randomblob(6))) AS id').get()!.id;
        this.db.prepare('UPDATE api_keys SET key_id = ? WHERE key_id = ?').run(newId, oldId);
        this.db.prepare('UPDATE api_key_previous_secrets SET key_id = ? WHERE key_id = ?').run(newId, oldId);
      }
    })();
    this.byHash = this.db.prepare<[string], Row>('SELECT * FROM api_keys WHERE hash = ?');
    this.byPreviousHash = this.db.prepare<[string], PreviousRow>(
      'SELECT k.*, p.valid_until AS secret_valid_until FROM api_key_previous_secrets p JOIN api_keys k ON k.key_id = p.key_id WHERE p.hash = ?',
    );
    this.version = this.db.prepare<[], { version: number }>('SELECT version FROM api_key_changes WHERE id = 1');
  }

  async lookup(presentedKey: string): Promise<{ record: ApiKeyRecord; replaced: boolean } | null> {
    const hash = hashKey(presentedKey);
    const row = this.byHash.get(hash);
    if (row) return { record: toRecord(row), replaced: false };
    const previous = this.byPreviousHash.get(hash);
    return previous ? { record: toRecord(previous), replaced: true } : null;
  }

  async authenticate(presentedKey: string): Promise<AuthenticatedKey | null> {
    const hash = hashKey(presentedKey);
    const row = this.byHash.get(hash);
    if (row) return acceptance(toRecord(row), false);
    const previous = this.byPreviousHash.get(hash);
    return previous ? acceptance({ ...toRecord(previous), previousSecretValidUntil: previous.secret_valid_until }, true) : null;
  }

  async create(input: CreateApiKeyInput) {
    const scopes = scopesOf(input);
    const expiresAt = checkExpiry(input.expiresAt);
    const { key, keyId } = input.plaintext !== undefined ? { key: input.plaintext, keyId: keyIdOf(input.plaintext) } : generateKey();
    const hash = hashKey(key);
    const existing = this.byHash.get(hash) ?? this.byPreviousHash.get(hash);
    if (existing) return { key, record: toRecord(existing) };
    const record = newKeyRecord(input, keyId, scopes, expiresAt);
    this.db
      .prepare(
        `INSERT INTO api_keys (key_id, hash, tenant_id, name, role, scopes, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`,
      )
      .run(keyId, hash, record.tenantId, record.name, scopes.includes('admin') ? 'admin' : 'agent', scopes.join(','), record.createdAt, expiresAt);
    return { key, record };
  }

  async get(keyId: string): Promise<ApiKeyRecord | null> {
    const row = this.db.prepare<[string], Row>('SELECT * FROM api_keys WHERE key_id = ?').get(keyId);
    return row ? toRecord(row) : null;
  }

  private require(keyId: string, live: boolean): ApiKeyRecord {
    const row = this.db.prepare<[string], Row>('SELECT * FROM api_keys WHERE key_id = ?').get(keyId);
    if (!row) throw notFound(keyId);
    if (live && row.revoked_at !== null) throw alreadyRevoked(keyId);
    return toRecord(row);
  }

  async revoke(keyId: string): Promise<ApiKeyRecord> {
    this.require(keyId, false);
    this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL').run(new Date().toISOString(), keyId);
    return this.require(keyId, false);
  }

  async rotate(keyId: string, graceSeconds: number) {
    checkGrace(graceSeconds);
    const { key } = generateKey(keyId);
    this.db.transaction(() => {
      this.require(keyId, true);
      const now = new Date();
      const graceEnds = new Date(now.getTime() + graceSeconds * 1000).toISOString();
      // The replaced secret keeps its own grace, beside those of earlier rotations. Ended ones stay (they
      // authenticate no more): a replaced secret configured again (REWIND_ADMIN_KEY) is then still known as replaced.
      this.db
        .prepare('INSERT OR REPLACE INTO api_key_previous_secrets (hash, key_id, valid_until) SELECT hash, key_id, ? FROM api_keys WHERE key_id = ?')
        .run(graceEnds, keyId);
      // previous_valid_until: when the last replaced secret still working stops.
      this.db
        .prepare(
          'UPDATE api_keys SET previous_valid_until = (SELECT max(valid_until) FROM api_key_previous_secrets WHERE key_id = ?), hash = ?, rotated_at = ? WHERE key_id = ?',
        )
        .run(keyId, hashKey(key), now.toISOString(), keyId);
    })();
    return { key, record: this.require(keyId, false) };
  }

  async setExpiry(keyId: string, expiresAt: string | null): Promise<ApiKeyRecord> {
    const at = checkExpiry(expiresAt);
    this.require(keyId, true);
    this.db.prepare('UPDATE api_keys SET expires_at = ? WHERE key_id = ?').run(at, keyId);
    return this.require(keyId, false);
  }

  async list(tenantId?: string): Promise<ApiKeyRecord[]> {
    const rows = tenantId
      ? this.db.prepare<[string], Row>('SELECT * FROM api_keys WHERE tenant_id = ? ORDER BY created_at').all(tenantId)
      : this.db.prepare<[], Row>('SELECT * FROM api_keys ORDER BY created_at').all();
    return rows.map(toRecord);
  }

  async count(): Promise<number> {
    return this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM api_keys').get()!.n;
  }

  async changeVersion(): Promise<number> {
    return this.version.get()!.version;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
