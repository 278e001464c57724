import { openSqliteFile } from '@rewind/event-store/sqlite';
import type Database from 'better-sqlite3';
import { generateKey, hashKey, keyIdOf, type ApiKeyRecord, type ApiKeyRole, type ApiKeyStore } from './api-key-store';

interface Row {
  key_id: string;
  tenant_id: string;
  name: string;
  role: ApiKeyRole;
  created_at: string;
}
const toRecord = (r: Row): ApiKeyRecord => ({ keyId: r.key_id, tenantId: r.tenant_id, name: r.name, role: r.role, createdAt: r.created_at });

/** API keys in the embedded SQLite file (its own connection; WAL lets it share the file). */
export class SqliteApiKeyStore implements ApiKeyStore {
  private readonly db: Database.Database;
  /** Prepared once: authentication runs on every request. */
  private readonly byHash: Database.Statement<[string], Row>;

  constructor(filename: string) {
    this.db = openSqliteFile(filename, 'FULL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS api_keys (
      key_id     TEXT PRIMARY KEY,
      hash       TEXT NOT NULL UNIQUE,
      tenant_id  TEXT NOT NULL,
      name       TEXT NOT NULL,
      role       TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`);
    this.byHash = this.db.prepare<[string], Row>('SELECT * FROM api_keys WHERE hash = ?');
  }

  async authenticate(presentedKey: string): Promise<ApiKeyRecord | null> {
    const row = this.byHash.get(hashKey(presentedKey));
    return row ? toRecord(row) : null;
  }

  async create(input: { tenantId: string; name: string; role: ApiKeyRole; plaintext?: string }) {
    const key = input.plaintext ?? generateKey().key;
    const record: ApiKeyRecord = { keyId: keyIdOf(key), tenantId: input.tenantId, name: input.name, role: input.role, createdAt: new Date().toISOString() };
    this.db
      .prepare('INSERT INTO api_keys (key_id, hash, tenant_id, name, role, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING')
      .run(record.keyId, hashKey(key), record.tenantId, record.name, record.role, record.createdAt);
    return { key, record };
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

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
