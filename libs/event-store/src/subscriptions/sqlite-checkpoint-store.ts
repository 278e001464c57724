import { openSqliteFile } from '../sqlite/open-sqlite-file';
import { applySqliteMigrations, type SqliteMigrationSet } from '../sqlite/sqlite-migrations';
import type Database from 'better-sqlite3';
import type { CheckpointStore } from './checkpoint-store';

const CHECKPOINT_MIGRATIONS: SqliteMigrationSet = {
  store: 'checkpoints',
  migrations: [
    {
      version: 1,
      name: 'subscriber checkpoints and leases',
      up: `CREATE TABLE IF NOT EXISTS relay_checkpoints (
      name        TEXT PRIMARY KEY,
      position    INTEGER NOT NULL,
      owner       TEXT,
      lease_until INTEGER NOT NULL DEFAULT 0,
      updated_at  TEXT NOT NULL
    ) WITHOUT ROWID`,
    },
  ],
};

/**
 * Checkpoints in the embedded SQLite file (table `relay_checkpoints`), on its own
 * connection to the same file as SqliteEventStore (WAL lets them share it). Commits use
 * synchronous=NORMAL: a checkpoint lost to a power cut only republishes a few events
 * (consumers dedupe by eventId); it can never skip one.
 */
export class SqliteCheckpointStore implements CheckpointStore {
  readonly db: Database.Database;
  private readonly statements;

  constructor(
    filename: string,
    private readonly now: () => number = Date.now,
  ) {
    this.db = openSqliteFile(filename, 'NORMAL');
    applySqliteMigrations(this.db, CHECKPOINT_MIGRATIONS);
    this.statements = {
      load: this.db.prepare<[string], { position: number }>('SELECT position FROM relay_checkpoints WHERE name = ?'),
      save: this.db.prepare(
        `INSERT INTO relay_checkpoints (name, position, owner, lease_until, updated_at) VALUES (?, ?, NULL, 0, ?)
         ON CONFLICT (name) DO UPDATE SET position = MAX(position, excluded.position), updated_at = excluded.updated_at`,
      ),
      acquire: this.db.prepare(
        `INSERT INTO relay_checkpoints (name, position, owner, lease_until, updated_at) VALUES (@name, 0, @owner, @until, @at)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until, updated_at = excluded.updated_at
         WHERE relay_checkpoints.owner IS NULL OR relay_checkpoints.owner = excluded.owner OR relay_checkpoints.lease_until < @now`,
      ),
      release: this.db.prepare('UPDATE relay_checkpoints SET owner = NULL, lease_until = 0, updated_at = ? WHERE name = ? AND owner = ?'),
    };
  }

  async load(name: string): Promise<number> {
    return this.statements.load.get(name)?.position ?? 0;
  }

  async save(name: string, position: number): Promise<void> {
    this.statements.save.run(name, position, new Date().toISOString());
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    return this.statements.acquire.run({ name, owner, until: now + ttlMs, at: new Date(now).toISOString(), now }).changes === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    this.statements.release.run(new Date().toISOString(), name, owner);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
