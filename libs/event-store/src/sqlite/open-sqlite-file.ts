import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SqliteDatabase } from './sqlite-driver';

export type SqliteSynchronous = 'FULL' | 'NORMAL' | 'EXTRA';

/** How long a connection waits for the file's write-ahead log to be set up by whichever process got there first. */
const WAL_SWITCH_DEADLINE_MS = 10_000;

/**
 * One connection to the embedded database file as every component opens it: the folder
 * created if needed, WAL (so several connections share the file), the chosen durability,
 * and a busy timeout instead of immediate "database is locked" errors.
 */
export function openSqliteFile(filename: string, synchronous: SqliteSynchronous = 'FULL'): Database.Database {
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  const db = new SqliteDatabase(filename);
  db.pragma('busy_timeout = 5000');
  useWriteAheadLog(db);
  db.pragma(`synchronous = ${synchronous}`);
  return db;
}

/**
 * Puts the file in WAL mode unless it already is. Switching needs the file to itself, and SQLite
 * answers SQLITE_BUSY at once — without waiting out the busy timeout, to avoid a deadlock — when
 * several processes open a fresh file at the same moment (CI saw three of four exit with "database is
 * locked"). The mode is stored in the file, so a loser retries and finds WAL already set.
 */
export function useWriteAheadLog(db: { pragma(source: string, options?: { simple: boolean }): unknown }): void {
  const deadline = Date.now() + WAL_SWITCH_DEADLINE_MS;
  for (;;) {
    try {
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.random() * 40);
    }
  }
}
