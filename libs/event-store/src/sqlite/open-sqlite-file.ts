import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SqliteDatabase } from './sqlite-driver';

export type SqliteSynchronous = 'FULL' | 'NORMAL' | 'EXTRA';

/**
 * One connection to the embedded database file as every component opens it: the folder
 * created if needed, WAL (so several connections share the file), the chosen durability,
 * and a busy timeout instead of immediate "database is locked" errors.
 */
export function openSqliteFile(filename: string, synchronous: SqliteSynchronous = 'FULL'): Database.Database {
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  const db = new SqliteDatabase(filename);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  return db;
}
