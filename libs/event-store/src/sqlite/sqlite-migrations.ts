import type Database from 'better-sqlite3';

/** A numbered migration of one store's tables in an SQLite file; frozen once released, like the PostgreSQL ones. */
export interface SqliteMigration {
  version: number;
  name: string;
  /** SQL to run, or a function for steps that look before they change (a column an older file lacks). */
  up: string | ((db: Database.Database) => void);
}

/** One store's migrations, recorded under its name in the file's `schema_versions` table. */
export interface SqliteMigrationSet {
  store: string;
  migrations: readonly SqliteMigration[];
}

const versionOf = (db: Database.Database, store: string): number => {
  const table = db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'schema_versions'").get();
  if (!table) return 0;
  return db.prepare<[string], { version: number }>('SELECT version FROM schema_versions WHERE store = ?').get(store)?.version ?? 0;
};

/**
 * Applies the set's pending migrations to the file in one IMMEDIATE transaction: it takes the
 * file's write lock before reading the version, so processes and connections opening the file
 * at once wait for each other (the connection's busy timeout) and then find them applied,
 * instead of each running the DDL. Each file keeps one version per store (`schema_versions`).
 * An up-to-date file costs one read and takes no lock. A store's first migration is what it
 * used to run at every open, idempotent, so a file made by that code is adopted as it is.
 */
export function applySqliteMigrations(db: Database.Database, set: SqliteMigrationSet): void {
  const latest = Math.max(0, ...set.migrations.map((m) => m.version));
  if (versionOf(db, set.store) >= latest) return;
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_versions (store TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID');
    const from = versionOf(db, set.store);
    if (from >= latest) return;
    for (const migration of set.migrations) {
      if (migration.version <= from) continue;
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
    }
    db.prepare(
      `INSERT INTO schema_versions (store, version, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (store) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
    ).run(set.store, latest, new Date().toISOString());
  }).immediate();
}

/** Adds the columns `table` lacks (files made before they existed), as TEXT. */
export function addMissingColumns(db: Database.Database, table: string, columns: readonly string[]): void {
  const present = new Set(
    db
      .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      .all()
      .map((c) => c.name),
  );
  for (const column of columns.filter((c) => !present.has(c))) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} TEXT`);
}
