import { addMissingColumns, applySqliteMigrations, openSqliteFile, type SqliteMigrationSet } from '@rewind/event-store/sqlite';
import type Database from 'better-sqlite3';
import {
  checkSigningGrace,
  newSecretText,
  newSigningSecret,
  usableNow,
  withoutSecret,
  withReplaced,
  type KafkaSigningSecretStore,
  type ReplacedSecret,
  type SigningSecret,
  type SigningSecretRecord,
} from './signing-secret-store';

interface Row {
  key_id: string;
  tenant_id: string;
  name: string;
  secret: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  previous_secret: string | null;
  previous_valid_until: string | null;
}

const toSecret = (r: Row): Omit<SigningSecret, 'previousSecrets'> => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  name: r.name,
  secret: r.secret,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  expiresAt: r.expires_at ?? null,
  previousSecretValidUntil: r.previous_valid_until ?? null,
});

const SIGNING_SECRET_MIGRATIONS: SqliteMigrationSet = {
  store: 'signing-secrets',
  migrations: [
    {
      version: 1,
      name: 'kafka signing secrets, each replaced secret with its own grace',
      up: (db) => {
        db.exec(`CREATE TABLE IF NOT EXISTS kafka_signing_keys (
          key_id     TEXT PRIMARY KEY,
          tenant_id  TEXT NOT NULL,
          name       TEXT NOT NULL,
          secret     TEXT NOT NULL,
          created_at TEXT NOT NULL,
          revoked_at TEXT
        ) WITHOUT ROWID`);
        // Columns added with rotation and expiry, for files created before them.
        addMissingColumns(db, 'kafka_signing_keys', ['expires_at', 'previous_secret', 'previous_valid_until']);
        // Every secret a rotation replaced, each with its own grace: a second rotation does not cut the
        // first one's short (previous_secret held only the last one). Secrets replaced before this
        // table existed move into it with their grace; previous_valid_until stays the last grace's end.
        db.exec(`CREATE TABLE IF NOT EXISTS kafka_signing_previous_secrets (
          key_id      TEXT NOT NULL,
          secret      TEXT NOT NULL,
          valid_until TEXT NOT NULL,
          PRIMARY KEY (key_id, secret)
        ) WITHOUT ROWID`);
        db.exec(`INSERT OR IGNORE INTO kafka_signing_previous_secrets (key_id, secret, valid_until)
          SELECT key_id, previous_secret, previous_valid_until FROM kafka_signing_keys WHERE previous_secret IS NOT NULL AND previous_valid_until IS NOT NULL`);
        db.exec('UPDATE kafka_signing_keys SET previous_secret = NULL WHERE previous_secret IS NOT NULL');
      },
    },
  ],
};

/** Signing secrets in the embedded SQLite file (table `kafka_signing_keys`; its own connection, WAL). */
export class SqliteKafkaSigningSecretStore implements KafkaSigningSecretStore {
  private readonly db: Database.Database;
  private readonly findStatement;
  private readonly replacedStatement;

  constructor(filename: string) {
    this.db = openSqliteFile(filename, 'FULL');
    applySqliteMigrations(this.db, SIGNING_SECRET_MIGRATIONS);
    this.findStatement = this.db.prepare<[string], Row>('SELECT * FROM kafka_signing_keys WHERE key_id = ? AND revoked_at IS NULL');
    this.replacedStatement = this.db.prepare<[string, string], { secret: string; valid_until: string }>(
      'SELECT secret, valid_until FROM kafka_signing_previous_secrets WHERE key_id = ? AND valid_until > ?',
    );
  }

  private replaced(keyId: string): ReplacedSecret[] {
    return this.replacedStatement.all(keyId, new Date().toISOString()).map((r) => ({ secret: r.secret, validUntil: r.valid_until }));
  }

  async find(keyId: string): Promise<SigningSecret | null> {
    const row = this.findStatement.get(keyId);
    return row ? usableNow(toSecret(row), this.replaced(keyId)) : null;
  }

  async create(input: { tenantId: string; name?: string; secret?: string; expiresAt?: string | null }): Promise<SigningSecret> {
    const key = newSigningSecret(input);
    this.db
      .prepare('INSERT INTO kafka_signing_keys (key_id, tenant_id, name, secret, created_at, revoked_at, expires_at) VALUES (?, ?, ?, ?, ?, NULL, ?)')
      .run(key.keyId, key.tenantId, key.name, key.secret, key.createdAt, key.expiresAt);
    return key;
  }

  async rotate(keyId: string, graceSeconds: number): Promise<SigningSecret | null> {
    checkSigningGrace(graceSeconds);
    const rotated = this.db.transaction(() => {
      if (!this.findStatement.get(keyId)) return false;
      const now = new Date().toISOString();
      // The replaced secret keeps its own grace, beside those of earlier rotations still running; ended ones go.
      this.db.prepare('DELETE FROM kafka_signing_previous_secrets WHERE key_id = ? AND valid_until <= ?').run(keyId, now);
      this.db
        .prepare(
          'INSERT OR REPLACE INTO kafka_signing_previous_secrets (key_id, secret, valid_until) SELECT key_id, secret, ? FROM kafka_signing_keys WHERE key_id = ?',
        )
        .run(new Date(Date.now() + graceSeconds * 1000).toISOString(), keyId);
      // previous_valid_until: when the last replaced secret still verifying stops.
      this.db
        .prepare(
          'UPDATE kafka_signing_keys SET previous_valid_until = (SELECT max(valid_until) FROM kafka_signing_previous_secrets WHERE key_id = ?), secret = ? WHERE key_id = ?',
        )
        .run(keyId, newSecretText(), keyId);
      return true;
    })();
    if (!rotated) return null;
    return withReplaced(toSecret(this.findStatement.get(keyId)!), this.replaced(keyId));
  }

  async revoke(keyId: string): Promise<boolean> {
    const existing = this.db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM kafka_signing_keys WHERE key_id = ?').get(keyId)!.n;
    this.db.prepare('UPDATE kafka_signing_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL').run(new Date().toISOString(), keyId);
    return existing > 0;
  }

  async list(tenantId?: string): Promise<SigningSecretRecord[]> {
    const rows = tenantId
      ? this.db.prepare<[string], Row>('SELECT * FROM kafka_signing_keys WHERE tenant_id = ? ORDER BY created_at').all(tenantId)
      : this.db.prepare<[], Row>('SELECT * FROM kafka_signing_keys ORDER BY created_at').all();
    return rows.map((r) => withoutSecret(withReplaced(toSecret(r), [])));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
