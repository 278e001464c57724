import { openSqliteFile } from '@rewind/event-store/sqlite';
import type Database from 'better-sqlite3';
import {
  checkSigningGrace,
  newSecretText,
  newSigningSecret,
  usableNow,
  withoutSecret,
  type KafkaSigningSecretStore,
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

const toSecret = (r: Row): SigningSecret => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  name: r.name,
  secret: r.secret,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  expiresAt: r.expires_at ?? null,
  previousSecret: r.previous_secret ?? null,
  previousSecretValidUntil: r.previous_valid_until ?? null,
});

/** Signing secrets in the embedded SQLite file (table `kafka_signing_keys`; its own connection, WAL). */
export class SqliteKafkaSigningSecretStore implements KafkaSigningSecretStore {
  private readonly db: Database.Database;
  private readonly findStatement;

  constructor(filename: string) {
    this.db = openSqliteFile(filename, 'FULL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS kafka_signing_keys (
      key_id     TEXT PRIMARY KEY,
      tenant_id  TEXT NOT NULL,
      name       TEXT NOT NULL,
      secret     TEXT NOT NULL,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    ) WITHOUT ROWID`);
    // Columns added with rotation and expiry, for files created before them.
    const present = new Set(
      this.db
        .prepare<[], { name: string }>('PRAGMA table_info(kafka_signing_keys)')
        .all()
        .map((c) => c.name),
    );
    for (const column of ['expires_at', 'previous_secret', 'previous_valid_until'].filter((c) => !present.has(c))) {
      try {
        this.db.exec(`ALTER TABLE kafka_signing_keys ADD COLUMN ${column} TEXT`);
      } catch (error) {
        if (!/duplicate column/i.test((error as Error).message)) throw error;
      }
    }
    this.findStatement = this.db.prepare<[string], Row>('SELECT * FROM kafka_signing_keys WHERE key_id = ? AND revoked_at IS NULL');
  }

  async find(keyId: string): Promise<SigningSecret | null> {
    const row = this.findStatement.get(keyId);
    return row ? usableNow(toSecret(row)) : null;
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
    const { changes } = this.db
      .prepare('UPDATE kafka_signing_keys SET previous_secret = secret, previous_valid_until = ?, secret = ? WHERE key_id = ? AND revoked_at IS NULL')
      .run(new Date(Date.now() + graceSeconds * 1000).toISOString(), newSecretText(), keyId);
    if (changes === 0) return null;
    return toSecret(this.findStatement.get(keyId)!);
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
    return rows.map((r) => withoutSecret(toSecret(r)));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
