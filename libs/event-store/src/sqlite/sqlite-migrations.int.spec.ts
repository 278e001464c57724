import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteFile } from './open-sqlite-file';
import { applySqliteMigrations, type SqliteMigrationSet } from './sqlite-migrations';

const dir = mkdtempSync(join(tmpdir(), 'rewind-sqlite-migrations-'));
let files = 0;
const freshFile = () => join(dir, `f${++files}.db`);

const things = (count: number): SqliteMigrationSet => ({
  store: 'things',
  migrations: Array.from({ length: count }, (_, i) => ({ version: i + 1, name: `thing ${i + 1}`, up: `CREATE TABLE thing_${i + 1} (id INTEGER PRIMARY KEY)` })),
});
const versions = (file: string) => {
  const db = openSqliteFile(file);
  try {
    return db.prepare('SELECT store, version FROM schema_versions ORDER BY store').all();
  } finally {
    db.close();
  }
};

describe('applySqliteMigrations (a schema version per store in each file)', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('applies each migration once, keeping one version per store, and an up-to-date file is left alone', () => {
    const file = freshFile();
    const db = openSqliteFile(file);
    applySqliteMigrations(db, things(2));
    applySqliteMigrations(db, { store: 'others', migrations: [{ version: 1, name: 'other', up: 'CREATE TABLE other (id INTEGER)' }] });
    applySqliteMigrations(db, things(3));
    applySqliteMigrations(db, things(3)); // a CREATE TABLE run again would throw
    applySqliteMigrations(db, things(2)); // an older release opening a newer file changes nothing
    db.close();
    expect(versions(file)).toEqual([
      { store: 'others', version: 1 },
      { store: 'things', version: 3 },
    ]);
  });

  it('rolls a failing migration back whole: neither its tables nor a version are left', () => {
    const file = freshFile();
    const db = openSqliteFile(file);
    applySqliteMigrations(db, things(1));
    const broken: SqliteMigrationSet = {
      store: 'things',
      migrations: [...things(2).migrations, { version: 3, name: 'bad', up: 'SELECT nonsense FROM nowhere' }],
    };
    expect(() => applySqliteMigrations(db, broken)).toThrow(/nowhere/);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'thing_2'").get()).toBeUndefined();
    db.close();
    expect(versions(file)).toEqual([{ store: 'things', version: 1 }]);
  });

  it("waits for another process that holds the file's write lock, then applies", async () => {
    const file = freshFile();
    openSqliteFile(file).close();
    // Another process takes the file's write lock and keeps it for a second.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('BEGIN IMMEDIATE'); console.log('locked');
         setTimeout(() => { db.exec('CREATE TABLE thing_1 (id INTEGER PRIMARY KEY); COMMIT'); db.close(); }, 1000);`,
        file,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const db = openSqliteFile(file);
    try {
      // The holder created thing_1 meanwhile, as an opener racing this one: migration 1 must see it, not fail.
      const set: SqliteMigrationSet = {
        store: 'things',
        migrations: [{ version: 1, name: 'thing 1', up: 'CREATE TABLE IF NOT EXISTS thing_1 (id INTEGER PRIMARY KEY)' }],
      };
      applySqliteMigrations(db, set);
    } finally {
      db.close();
    }
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(versions(file)).toEqual([{ store: 'things', version: 1 }]);
  });
});
