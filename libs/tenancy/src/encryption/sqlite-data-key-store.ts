import { applySqliteMigrations, openSqliteFile, type SqliteMigrationSet } from '@rewind/event-store/sqlite';
import type Database from 'better-sqlite3';
import type { DataKeyStore, ShreddedKey, StoredDataKey } from './data-key-store';
import { policiesFrom, type EncryptionPolicies, type EncryptionPolicyStore } from './encryption-policy';
import type { RetentionPolicy, RetentionPolicyStore } from './retention-policy';

interface Row {
  key_id: string;
  tenant_id: string;
  session_id: string;
  wrapped: string | null;
  created_at: string;
  shredded_at: string | null;
  shredded_by: string | null;
}
const toKey = (r: Row): StoredDataKey => ({
  keyId: r.key_id,
  tenantId: r.tenant_id,
  sessionId: r.session_id,
  wrapped: r.wrapped,
  createdAt: r.created_at,
  shreddedAt: r.shredded_at,
  shreddedBy: r.shredded_by,
});

const DATA_KEY_MIGRATIONS: SqliteMigrationSet = {
  store: 'data-keys',
  migrations: [
    {
      version: 1,
      name: 'data keys, encryption and retention policies',
      up: `CREATE TABLE IF NOT EXISTS data_keys (
      key_id      TEXT PRIMARY KEY,
      tenant_id   TEXT NOT NULL,
      session_id  TEXT NOT NULL,
      wrapped     TEXT,
      created_at  TEXT NOT NULL,
      shredded_at TEXT,
      shredded_by TEXT,
      UNIQUE (tenant_id, session_id)
    );
    CREATE TABLE IF NOT EXISTS encryption_policies (
      tenant_id TEXT NOT NULL,
      kind      TEXT NOT NULL,
      name      TEXT NOT NULL,
      paths     TEXT NOT NULL,
      PRIMARY KEY (tenant_id, kind, name)
    );
    CREATE TABLE IF NOT EXISTS retention_policies (
      tenant_id     TEXT PRIMARY KEY,
      inactive_days INTEGER NOT NULL
    )`,
    },
  ],
};

/** Data keys in the embedded file. Deleted bytes are overwritten (secure_delete) and the WAL is truncated after a shred. */
export class SqliteDataKeyStore implements DataKeyStore, EncryptionPolicyStore, RetentionPolicyStore {
  private readonly db: Database.Database;

  constructor(filename: string) {
    this.db = openSqliteFile(filename, 'FULL');
    this.db.pragma('secure_delete = ON');
    applySqliteMigrations(this.db, DATA_KEY_MIGRATIONS);
  }

  async retentionPolicies(): Promise<RetentionPolicy[]> {
    return this.db
      .prepare<[], { tenant_id: string; inactive_days: number }>('SELECT tenant_id, inactive_days FROM retention_policies ORDER BY tenant_id')
      .all()
      .map((r) => ({ tenantId: r.tenant_id, inactiveDays: r.inactive_days }));
  }

  async setRetention(tenantId: string, inactiveDays: number | null) {
    if (inactiveDays === null) this.db.prepare('DELETE FROM retention_policies WHERE tenant_id = ?').run(tenantId);
    else
      this.db
        .prepare('INSERT INTO retention_policies (tenant_id, inactive_days) VALUES (?, ?) ON CONFLICT DO UPDATE SET inactive_days = excluded.inactive_days')
        .run(tenantId, inactiveDays);
  }

  async policies(tenantId: string): Promise<EncryptionPolicies> {
    return policiesFrom(
      this.db
        .prepare<[string], { kind: 'tool' | 'memory'; name: string; paths: string }>('SELECT kind, name, paths FROM encryption_policies WHERE tenant_id = ?')
        .all(tenantId),
    );
  }

  async setTool(tenantId: string, tool: string, paths: { input: string[]; output: string[] }) {
    if (paths.input.length + paths.output.length === 0) {
      this.db.prepare(`DELETE FROM encryption_policies WHERE tenant_id = ? AND kind = 'tool' AND name = ?`).run(tenantId, tool);
      return;
    }
    this.db
      .prepare(`INSERT INTO encryption_policies (tenant_id, kind, name, paths) VALUES (?, 'tool', ?, ?) ON CONFLICT DO UPDATE SET paths = excluded.paths`)
      .run(tenantId, tool, JSON.stringify(paths));
  }

  async setMemoryKey(tenantId: string, key: string, encrypted: boolean) {
    if (encrypted) this.db.prepare(`INSERT OR IGNORE INTO encryption_policies (tenant_id, kind, name, paths) VALUES (?, 'memory', ?, '[]')`).run(tenantId, key);
    else this.db.prepare(`DELETE FROM encryption_policies WHERE tenant_id = ? AND kind = 'memory' AND name = ?`).run(tenantId, key);
  }

  async byId(keyId: string) {
    const row = this.db.prepare<[string], Row>('SELECT * FROM data_keys WHERE key_id = ?').get(keyId);
    return row ? toKey(row) : null;
  }

  async forSession(tenantId: string, sessionId: string) {
    const row = this.db.prepare<[string, string], Row>('SELECT * FROM data_keys WHERE tenant_id = ? AND session_id = ?').get(tenantId, sessionId);
    return row ? toKey(row) : null;
  }

  async create(key: Omit<StoredDataKey, 'shreddedAt' | 'shreddedBy' | 'createdAt'>) {
    this.db
      .prepare(
        'INSERT INTO data_keys (key_id, tenant_id, session_id, wrapped, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, session_id) DO NOTHING',
      )
      .run(key.keyId, key.tenantId, key.sessionId, key.wrapped, new Date().toISOString());
    return (await this.forSession(key.tenantId, key.sessionId))!;
  }

  async shred(tenantId: string, sessionId: string | null, actor: string): Promise<ShreddedKey[]> {
    const now = new Date().toISOString();
    const live = this.db
      .transaction(() => {
        const keys = this.db
          .prepare<
            [string, string | null, string | null],
            { key_id: string; session_id: string }
          >('SELECT key_id, session_id FROM data_keys WHERE tenant_id = ? AND (? IS NULL OR session_id = ?) AND wrapped IS NOT NULL')
          .all(tenantId, sessionId, sessionId);
        const update = this.db.prepare('UPDATE data_keys SET wrapped = NULL, shredded_at = ?, shredded_by = ? WHERE key_id = ?');
        for (const key of keys) update.run(now, actor, key.key_id);
        return keys;
      })
      .immediate();
    // The old page images of the key rows may still sit in the WAL: fold it back and empty it.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return live.map((k) => ({ keyId: k.key_id, sessionId: k.session_id }));
  }

  async close() {
    if (this.db.open) this.db.close();
  }
}
