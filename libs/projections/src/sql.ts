import { CHECKPOINTS_TABLE, type ColumnKind, type Row, type TableSpec } from './schema';

/**
 * Database work is written once, as generators that yield SQL operations, and run by either
 * connection: synchronously on SQLite (better-sqlite3 must not hold the file's write lock
 * across an `await`: another connection of the same process would wait for it with the event
 * loop blocked) and asynchronously on PostgreSQL.
 */
export type DbOp =
  | { kind: 'query'; sql: string; params: readonly unknown[] }
  /** SQLite: one prepared statement run once per parameter list, rows concatenated. */
  | { kind: 'queryEach'; sql: string; params: readonly (readonly unknown[])[] }
  | { kind: 'run'; sql: string; params: readonly unknown[] }
  /** SQLite: one prepared statement run once per parameter list. */
  | { kind: 'runEach'; sql: string; params: readonly (readonly unknown[])[] }
  /** Statements without parameters (DDL), several allowed. */
  | { kind: 'exec'; sql: string }
  /** PostgreSQL: COPY rows into a table (columns quoted and joined). */
  | { kind: 'copy'; target: string; columns: string; table: TableSpec; rows: readonly Row[] };

export type Step<T> = Generator<DbOp, T, unknown>;

export function* query<T = Row>(sql: string, params: readonly unknown[] = []): Step<T[]> {
  return (yield { kind: 'query', sql, params }) as T[];
}
export function* queryEach<T = Row>(sql: string, params: readonly (readonly unknown[])[]): Step<T[]> {
  if (params.length === 0) return [];
  return (yield { kind: 'queryEach', sql, params }) as T[];
}
export function* run(sql: string, params: readonly unknown[] = []): Step<void> {
  yield { kind: 'run', sql, params };
}
export function* runEach(sql: string, params: readonly (readonly unknown[])[]): Step<void> {
  if (params.length > 0) yield { kind: 'runEach', sql, params };
}
export function* exec(sql: string): Step<void> {
  yield { kind: 'exec', sql };
}

/** Runs a generator of SQL operations with a synchronous executor (SQLite). */
export function runSync<T>(steps: Step<T>, execute: (op: DbOp) => unknown): T {
  let next = steps.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = execute(next.value);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

/** Runs a generator of SQL operations with an asynchronous executor (PostgreSQL). */
export async function runAsync<T>(steps: Step<T>, execute: (op: DbOp) => Promise<unknown>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await execute(next.value);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

export type DialectKind = 'sqlite' | 'postgres';

/** Which physical table a writer works on: the live one, or the shadow a rebuild fills. */
export type TableVariant = 'live' | 'shadow';

export const SHADOW_SUFFIX = '__rebuild';

const PG_TYPES: Record<ColumnKind, string> = { text: 'text', int: 'integer', bigint: 'bigint', bool: 'boolean' };

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The SQL that differs between SQLite and PostgreSQL: placeholders, batch statements (a
 * prepared statement per row on SQLite, one `unnest` statement per batch on PostgreSQL),
 * value encodings (SQLite booleans are 0/1; PostgreSQL bigints come back as strings).
 */
export class Dialect {
  constructor(
    readonly kind: DialectKind,
    /** PostgreSQL schema of the read models. */
    readonly schema: string | null = null,
  ) {}

  get postgres(): boolean {
    return this.kind === 'postgres';
  }

  /** Placeholder number `n` (1-based). */
  p(n: number): string {
    return this.postgres ? `$${n}` : '?';
  }

  tableName(name: string, variant: TableVariant = 'live'): string {
    return variant === 'live' ? name : `${name}${SHADOW_SUFFIX}`;
  }

  /** The quoted, schema-qualified name of a table. */
  qualified(name: string, variant: TableVariant = 'live'): string {
    const table = quoteIdent(this.tableName(name, variant));
    return this.schema ? `${quoteIdent(this.schema)}.${table}` : table;
  }

  encode(kind: ColumnKind, value: unknown): unknown {
    if (value === undefined) return null;
    if (kind === 'bool' && !this.postgres && value !== null) return value ? 1 : 0;
    return value;
  }

  decodeRow(table: TableSpec, row: Row): Row {
    const out: Row = {};
    for (const column of table.columns) {
      const value = row[column.name];
      if (value === null || value === undefined) out[column.name] = null;
      else if (column.kind === 'bool') out[column.name] = Boolean(value);
      else if (column.kind === 'int' || column.kind === 'bigint') out[column.name] = Number(value);
      else out[column.name] = value;
    }
    return out;
  }

  /** Inserts rows; with `upsert`, a row whose primary key exists replaces it. */
  *insert(table: TableSpec, rows: readonly Row[], options: { variant?: TableVariant; upsert?: boolean } = {}): Step<void> {
    if (rows.length === 0) return;
    const columns = table.columns;
    const names = columns.map((c) => quoteIdent(c.name)).join(', ');
    const conflict = options.upsert ? this.onConflictUpdate(table) : '';
    const target = this.qualified(table.name, options.variant);
    if (this.postgres && !options.upsert) {
      yield { kind: 'copy', target, columns: names, table, rows };
      return;
    }
    if (this.postgres) {
      const arrays = columns.map((c) => rows.map((row) => this.encode(c.kind, row[c.name])));
      const unnest = columns.map((c, i) => `$${i + 1}::${PG_TYPES[c.kind]}[]`).join(', ');
      yield* run(`INSERT INTO ${target} (${names}) SELECT * FROM unnest(${unnest})${conflict}`, arrays);
    } else {
      const placeholders = columns.map(() => '?').join(', ');
      yield* runEach(
        `INSERT INTO ${target} (${names}) VALUES (${placeholders})${conflict}`,
        rows.map((row) => columns.map((c) => this.encode(c.kind, row[c.name]))),
      );
    }
  }

  private onConflictUpdate(table: TableSpec): string {
    const keys = table.primaryKey.map(quoteIdent).join(', ');
    const updates = table.columns
      .filter((c) => !table.primaryKey.includes(c.name))
      .map((c) => `${quoteIdent(c.name)} = excluded.${quoteIdent(c.name)}`)
      .join(', ');
    return ` ON CONFLICT (${keys}) DO UPDATE SET ${updates}`;
  }

  /** Rows by primary key (keys in primary-key column order). */
  *selectByKeys(table: TableSpec, keys: readonly (readonly unknown[])[], variant: TableVariant = 'live'): Step<Row[]> {
    if (keys.length === 0) return [];
    const target = this.qualified(table.name, variant);
    const pk = table.primaryKey;
    let rows: Row[];
    if (this.postgres) {
      const kinds = pk.map((name) => table.columns.find((c) => c.name === name)!.kind);
      const unnest = pk.map((_, i) => `$${i + 1}::${PG_TYPES[kinds[i]!]}[]`).join(', ');
      const match = pk.map((name, i) => `x.${quoteIdent(name)} = k.c${i}`).join(' AND ');
      const aliases = pk.map((_, i) => `c${i}`).join(', ');
      // LATERAL: one index probe per key, whatever the statistics of a fresh shadow table say.
      rows = yield* query(
        `SELECT t.* FROM unnest(${unnest}) AS k(${aliases}) CROSS JOIN LATERAL (SELECT * FROM ${target} x WHERE ${match}) t`,
        pk.map((_, i) => keys.map((k) => k[i])),
      );
    } else {
      const where = pk.map((name) => `${quoteIdent(name)} = ?`).join(' AND ');
      rows = yield* queryEach(`SELECT * FROM ${target} WHERE ${where}`, keys);
    }
    return rows.map((row) => this.decodeRow(table, row));
  }

  // ---- checkpoints -----------------------------------------------------------------

  /** A projection's checkpoint; with `lock`, the row stays locked until the transaction ends (PostgreSQL). */
  *checkpoint(name: string, lock = false): Step<number | null> {
    return (yield* this.checkpointRow(name, lock))?.position ?? null;
  }

  /** The checkpoint and the pause a verifying rebuild may have set (null when none is in force). */
  *checkpointRow(name: string, lock = false): Step<{ position: number; pausedUntil: string | null } | null> {
    const rows = yield* query<{ position: unknown; paused_until: string | null }>(
      `SELECT position, paused_until FROM ${this.qualified(CHECKPOINTS_TABLE)} WHERE name = ${this.p(1)}${lock && this.postgres ? ' FOR UPDATE' : ''}`,
      [name],
    );
    const row = rows[0];
    if (!row) return null;
    const paused = row.paused_until !== null && row.paused_until > new Date().toISOString() ? row.paused_until : null;
    return { position: Number(row.position), pausedUntil: paused };
  }

  /** Pauses (until an instant) or resumes (null) a projection's runners. */
  *setPause(name: string, until: string | null): Step<void> {
    yield* run(`UPDATE ${this.qualified(CHECKPOINTS_TABLE)} SET paused_until = ${this.p(1)} WHERE name = ${this.p(2)}`, [until, name]);
  }

  *setCheckpoint(name: string, position: number): Step<void> {
    yield* run(
      `INSERT INTO ${this.qualified(CHECKPOINTS_TABLE)} (name, position, updated_at) VALUES (${this.p(1)}, ${this.p(2)}, ${this.p(3)})
       ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
      [name, position, new Date().toISOString()],
    );
  }

  *deleteCheckpoint(name: string): Step<void> {
    yield* run(`DELETE FROM ${this.qualified(CHECKPOINTS_TABLE)} WHERE name = ${this.p(1)}`, [name]);
  }
}
