import type Database from 'better-sqlite3';
import type { EventSeal, SealStore } from '../audit/seal-store';
import { openSqliteFile } from './open-sqlite-file';
import { applySqliteMigrations, type SqliteMigrationSet } from './sqlite-migrations';

interface Row {
  global_position: number;
  stream_id: string;
  stream_version: number;
  hash: string;
}
const toSeal = (r: Row): EventSeal => ({ position: r.global_position, streamId: r.stream_id, streamVersion: r.stream_version, hash: r.hash });

const SEAL_MIGRATIONS: SqliteMigrationSet = {
  store: 'seals',
  migrations: [
    {
      version: 1,
      name: 'event seals',
      up: `
      CREATE TABLE IF NOT EXISTS event_seals (
        global_position INTEGER PRIMARY KEY,
        stream_id       TEXT    NOT NULL,
        stream_version  INTEGER NOT NULL,
        hash            TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX IF NOT EXISTS event_seals_by_stream ON event_seals (stream_id, stream_version);
    `,
    },
  ],
};

/** Event seals in the embedded SQLite file, beside the events (its own connection). */
export class SqliteSealStore implements SealStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[number, string, number, string]>;

  constructor(filename: string) {
    this.db = openSqliteFile(filename, 'FULL');
    applySqliteMigrations(this.db, SEAL_MIGRATIONS);
    this.insert = this.db.prepare('INSERT OR IGNORE INTO event_seals (global_position, stream_id, stream_version, hash) VALUES (?, ?, ?, ?)');
  }

  async lastSealedPosition(): Promise<number> {
    return this.db.prepare<[], { p: number | null }>('SELECT max(global_position) AS p FROM event_seals').get()!.p ?? 0;
  }

  async streamHeads(streamIds: readonly string[]): Promise<Map<string, EventSeal>> {
    const head = this.db.prepare<[string], Row>('SELECT * FROM event_seals WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 1');
    const heads = new Map<string, EventSeal>();
    for (const id of streamIds) {
      const row = head.get(id);
      if (row) heads.set(id, toSeal(row));
    }
    return heads;
  }

  async append(seals: readonly EventSeal[]): Promise<void> {
    this.db.transaction(() => {
      for (const s of seals) this.insert.run(s.position, s.streamId, s.streamVersion, s.hash);
    })();
  }

  async readSeals({ after, limit, upTo }: { after: number; limit: number; upTo?: number }): Promise<EventSeal[]> {
    return this.db
      .prepare<[number, number, number], Row>('SELECT * FROM event_seals WHERE global_position > ? AND global_position <= ? ORDER BY global_position LIMIT ?')
      .all(after, upTo ?? Number.MAX_SAFE_INTEGER, limit)
      .map(toSeal);
  }

  async readStreamSeals(streamId: string): Promise<EventSeal[]> {
    return this.db.prepare<[string], Row>('SELECT * FROM event_seals WHERE stream_id = ? ORDER BY stream_version').all(streamId).map(toSeal);
  }

  async sealsAt(positions: readonly number[]): Promise<Map<number, EventSeal>> {
    const found = new Map<number, EventSeal>();
    if (positions.length === 0) return found;
    const at = this.db.prepare<[number], Row>('SELECT * FROM event_seals WHERE global_position = ?');
    for (const p of positions) {
      const row = at.get(p);
      if (row) found.set(p, toSeal(row));
    }
    return found;
  }

  /** SQLite's write lock already serialises sealers; duplicates are ignored. */
  async exclusively<T>(work: () => Promise<T>): Promise<T | null> {
    return work();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
