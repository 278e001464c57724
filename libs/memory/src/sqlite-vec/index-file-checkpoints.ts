import { openSqliteFile } from '@rewind/event-store/sqlite';
import type { CheckpointStore } from '@rewind/event-store/subscriptions';
import type Database from 'better-sqlite3';

/** Where the memory indexer keeps its progress: a CheckpointStore (the index file's own, or the shared one). */
export type IndexerCheckpoints = CheckpointStore;

/**
 * The indexer's checkpoint kept inside the local index file it describes (table
 * `memory_checkpoints`), so the progress follows the index: several processes each with
 * their own file each index the whole log, and a rebuilt file carries its own progress.
 *
 * Upgrade: an index file that holds items but no checkpoint of its own was written when the
 * progress lived in the shared store (`legacy`); its position there is adopted once (neither
 * re-embedding everything nor skipping). A fresh file starts at 0 whatever the shared store says.
 * Opened lazily (the data directory may not exist until the index opens).
 */
export class IndexFileCheckpoints implements IndexerCheckpoints {
  private db: Database.Database | undefined;

  constructor(
    private readonly filename: string,
    private readonly legacy?: Pick<IndexerCheckpoints, 'load'>,
  ) {}

  /** No lease: the file is this process's own index, which it follows alone (exclusivity `none`). */
  async acquire(): Promise<boolean> {
    return true;
  }

  async release(): Promise<void> {}

  private connection(): Database.Database {
    this.db ??= openSqliteFile(this.filename, 'NORMAL');
    return this.db;
  }

  private own(name: string): number | undefined {
    const db = this.connection();
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_checkpoints'").get();
    if (!table) return undefined;
    return db.prepare<[string], { position: number }>('SELECT position FROM memory_checkpoints WHERE name = ?').get(name)?.position;
  }

  private async adoptable(name: string): Promise<number> {
    return this.legacy && this.holdsItems(this.connection()) ? this.legacy.load(name) : 0;
  }

  async load(name: string): Promise<number> {
    const own = this.own(name);
    if (own !== undefined) return own;
    const adopted = await this.adoptable(name);
    await this.save(name, adopted);
    return adopted;
  }

  /** The position load() would give, without recording an adopted one or touching the file's schema (read-only inspection). */
  async peek(name: string): Promise<number> {
    return this.own(name) ?? (await this.adoptable(name));
  }

  async save(name: string, position: number): Promise<void> {
    const db = this.connection();
    db.exec('CREATE TABLE IF NOT EXISTS memory_checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID');
    // Never moves back, like the shared stores.
    db.prepare(
      `INSERT INTO memory_checkpoints (name, position, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET position = MAX(position, excluded.position), updated_at = excluded.updated_at`,
    ).run(name, position, new Date().toISOString());
  }

  /** Whether any model's items table in this file has a row (an index written before this checkpoint existed). */
  private holdsItems(db: Database.Database): boolean {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'memory\\_%\\_items' ESCAPE '\\'").all();
    return tables.some((t) => (db.prepare(`SELECT EXISTS (SELECT 1 FROM "${t.name}") AS found`).get() as { found: number }).found === 1);
  }

  async close(): Promise<void> {
    if (this.db?.open) this.db.close();
    this.db = undefined;
  }
}
