import { openSqliteFile } from '@rewind/event-store/sqlite';
import type Database from 'better-sqlite3';
import type { MemoryPolicy, MemoryPolicyStore } from '../memory-policy';

/** Memory policies in a SQLite file (the memory index's): table `memory_policies`, '' standing for "the whole tenant". */
export class SqlitePolicyStore implements MemoryPolicyStore {
  private readonly db: Database.Database;
  private readonly owned: boolean;
  private readonly statements;

  constructor(file: string | Database.Database) {
    this.owned = typeof file === 'string';
    this.db = typeof file === 'string' ? openSqliteFile(file, 'FULL') : file;
    this.db.exec(`CREATE TABLE IF NOT EXISTS memory_policies (
      tenant_id  TEXT NOT NULL,
      session_id TEXT NOT NULL,
      policy     TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (tenant_id, session_id)
    ) WITHOUT ROWID`);
    this.statements = {
      get: this.db.prepare<[string, string], { policy: MemoryPolicy }>('SELECT policy FROM memory_policies WHERE tenant_id = ? AND session_id = ?'),
      set: this.db.prepare(
        `INSERT INTO memory_policies (tenant_id, session_id, policy, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (tenant_id, session_id) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at`,
      ),
    };
  }

  async get(tenantId: string, sessionId?: string): Promise<MemoryPolicy | null> {
    return this.statements.get.get(tenantId, sessionId ?? '')?.policy ?? null;
  }

  async set(tenantId: string, sessionId: string | undefined, policy: MemoryPolicy): Promise<void> {
    this.statements.set.run(tenantId, sessionId ?? '', policy, new Date().toISOString());
  }

  close(): void {
    if (this.owned && this.db.open) this.db.close();
  }
}
