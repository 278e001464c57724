import { exec, query, quoteIdent, SHADOW_SUFFIX, type Dialect, type Step } from './sql';

/**
 * Shadow tables for rebuilds, cloned from the live tables' definitions in the database
 * catalog (so that whatever the migrations made is what a rebuild makes), then swapped in
 * by renaming, in one transaction, with the canonical index and constraint names restored.
 */

const PG_NAME_LIMIT = 63;

function checkName(name: string): void {
  if (name.length + SHADOW_SUFFIX.length > PG_NAME_LIMIT) {
    throw new Error(
      `The name "${name}" is too long for a rebuild's shadow copy: keep table, index and constraint names within ${PG_NAME_LIMIT - SHADOW_SUFFIX.length} characters.`,
    );
  }
}

/** Drops any leftover shadow of `table` and creates an empty one with the live table's columns and keys (no secondary indexes yet). */
export function* createShadowTable(d: Dialect, table: string): Step<void> {
  const live = d.qualified(table);
  const shadow = d.qualified(table, 'shadow');
  yield* exec(`DROP TABLE IF EXISTS ${shadow}`);
  if (!d.postgres) {
    const rows = yield* query<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, [table]);
    if (!rows[0]) throw new Error(`The read-model table "${table}" does not exist: the read-model migrations have not run.`);
    const ddl = rows[0].sql.replace(/^CREATE TABLE\s+("(?:[^"]|"")+"|`[^`]+`|\[[^\]]+\]|[^\s(]+)/i, `CREATE TABLE ${shadow}`);
    yield* exec(ddl);
    return;
  }
  checkName(table);
  yield* exec(
    `CREATE TABLE ${shadow} (LIKE ${live} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS)`,
  );

  // Primary keys and unique constraints first: the writers' upserts need them.
  const constraints = yield* query<{ name: string; def: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u') ORDER BY conname`,
    [live],
  );
  for (const c of constraints) {
    checkName(c.name);
    yield* exec(`ALTER TABLE ${shadow} ADD CONSTRAINT ${quoteIdent(c.name + SHADOW_SUFFIX)} ${c.def}`);
  }
}

/**
 * PostgreSQL: the live table's other indexes, built on the filled shadow (faster than
 * maintaining them row by row), and fresh statistics.
 */
export function* finishShadowTable(d: Dialect, table: string): Step<void> {
  if (!d.postgres) return;
  const live = d.qualified(table);
  const shadow = d.qualified(table, 'shadow');
  const indexes = yield* query<{ name: string; def: string }>(
    `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
      ORDER BY i.relname`,
    [live],
  );
  for (const index of indexes) {
    checkName(index.name);
    const match = /^CREATE (UNIQUE )?INDEX \S+ ON (?:ONLY )?\S+ (USING .*)$/s.exec(index.def);
    if (!match) throw new Error(`Cannot copy index ${index.name} for a rebuild: unexpected definition "${index.def}".`);
    yield* exec(`DROP INDEX IF EXISTS ${quoteIdent(d.schema!)}.${quoteIdent(index.name + SHADOW_SUFFIX)}`);
    yield* exec(`CREATE ${match[1] ?? ''}INDEX ${quoteIdent(index.name + SHADOW_SUFFIX)} ON ${shadow} ${match[2]}`);
  }
  yield* exec(`ANALYZE ${shadow}`);
}

/** Replaces the live table by its shadow (inside the caller's transaction). */
export function* swapShadowTable(d: Dialect, table: string): Step<void> {
  const live = d.qualified(table);
  const shadow = d.qualified(table, 'shadow');
  if (!d.postgres) {
    // SQLite cannot rename an index: the live table's indexes are re-created under their own names.
    const indexes = yield* query<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`, [table]);
    yield* exec(`DROP TABLE ${live}`);
    yield* exec(`ALTER TABLE ${shadow} RENAME TO ${quoteIdent(table)}`);
    for (const index of indexes) yield* exec(index.sql);
    return;
  }
  yield* exec(`DROP TABLE ${live}`);
  yield* exec(`ALTER TABLE ${shadow} RENAME TO ${quoteIdent(table)}`);
  const names = yield* query<{ name: string; constraint_name: string | null }>(
    `SELECT i.relname AS name, (SELECT c.conname FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.conrelid = x.indrelid LIMIT 1) AS constraint_name
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = $1::regclass`,
    [live],
  );
  for (const n of names) {
    if (n.constraint_name?.endsWith(SHADOW_SUFFIX)) {
      yield* exec(`ALTER TABLE ${live} RENAME CONSTRAINT ${quoteIdent(n.constraint_name)} TO ${quoteIdent(n.constraint_name.slice(0, -SHADOW_SUFFIX.length))}`);
    } else if (!n.constraint_name && n.name.endsWith(SHADOW_SUFFIX)) {
      yield* exec(`ALTER INDEX ${quoteIdent(d.schema!)}.${quoteIdent(n.name)} RENAME TO ${quoteIdent(n.name.slice(0, -SHADOW_SUFFIX.length))}`);
    }
  }
}

export function* dropShadowTable(d: Dialect, table: string): Step<void> {
  yield* exec(`DROP TABLE IF EXISTS ${d.qualified(table, 'shadow')}`);
}
