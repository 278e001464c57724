import { CHECKPOINTS_TABLE, DECLARED_TYPES, type ColumnKind, type Row, type TableSpec } from './schema';

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

const PG_TYPES = DECLARED_TYPES.postgres;

function kindOf(table: TableSpec, column: string): ColumnKind {
  const spec = table.columns.find((c) => c.name === column);
  if (!spec) throw new Error(`The read-model table ${table.name} has no column ${column}.`);
  return spec.kind;
}

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

  /** A row as the writers use it: booleans and numbers decoded (only `columns` when given). */
  decodeRow(table: TableSpec, row: Row, columns?: readonly string[]): Row {
    const out: Row = {};
    for (const column of table.columns) {
      if (columns && !columns.includes(column.name)) continue;
      const value = row[column.name];
      if (value === null || value === undefined) out[column.name] = null;
      else if (column.kind === 'bool') out[column.name] = Boolean(value);
      else if (column.kind === 'int' || column.kind === 'bigint') out[column.name] = Number(value);
      else out[column.name] = value;
    }
    return out;
  }

  /**
   * The batch statements' shared parts: on PostgreSQL, `unnest` of one typed array per column
   * (`$1::text[], ...` as `alias(c0, c1, ...)`) and the condition joining it to the table
   * aliased `x`; on SQLite, `"column" = ?` per column for a statement run once per row.
   */
  private unnest(table: TableSpec, columns: readonly string[], alias: string): string {
    const types = columns.map((name, i) => `$${i + 1}::${PG_TYPES[kindOf(table, name)]}[]`).join(', ');
    return `unnest(${types}) AS ${alias}(${columns.map((_, i) => `c${i}`).join(', ')})`;
  }

  private matchUnnested(columns: readonly string[], alias: string): string {
    return columns.map((name, i) => `x.${quoteIdent(name)} = ${alias}.c${i}`).join(' AND ');
  }

  private matchEach(columns: readonly string[]): string {
    return columns.map((name) => `${quoteIdent(name)} = ?`).join(' AND ');
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
    return yield* this.select(table, table.primaryKey, keys, { variant });
  }

  /**
   * The rows whose `match` columns equal one of `keys` (each in `match` order), decoded: all
   * of them, or with `limit` the first ones per key in `orderBy` order; only `columns` when given.
   */
  *select(
    table: TableSpec,
    match: readonly string[],
    keys: readonly (readonly unknown[])[],
    options: { variant?: TableVariant; columns?: readonly string[]; orderBy?: { column: string; descending?: boolean }; limit?: number } = {},
  ): Step<Row[]> {
    if (keys.length === 0) return [];
    const target = this.qualified(table.name, options.variant);
    const x = this.postgres ? 'x.' : '';
    const columns = options.columns ? options.columns.map((c) => x + quoteIdent(c)).join(', ') : '*';
    const order = options.orderBy ? ` ORDER BY ${x}${quoteIdent(options.orderBy.column)}${options.orderBy.descending ? ' DESC' : ''}` : '';
    const limit = options.limit === undefined ? '' : ` LIMIT ${Math.trunc(options.limit)}`;
    let rows: Row[];
    if (this.postgres) {
      // LATERAL: one index probe per key, whatever the statistics of a fresh shadow table say.
      rows = yield* query(
        `SELECT t.* FROM ${this.unnest(table, match, 'k')} CROSS JOIN LATERAL (SELECT ${columns} FROM ${target} x WHERE ${this.matchUnnested(match, 'k')}${order}${limit}) t`,
        match.map((_, i) => keys.map((k) => k[i])),
      );
    } else {
      rows = yield* queryEach(`SELECT ${columns} FROM ${target} WHERE ${this.matchEach(match)}${order}${limit}`, keys);
    }
    return rows.map((row) => this.decodeRow(table, row, options.columns));
  }

  /** Sets the `set` columns of the rows with the primary keys of `rows` to their values in `rows`. */
  *update(table: TableSpec, set: readonly string[], rows: readonly Row[], variant: TableVariant = 'live'): Step<void> {
    if (rows.length === 0) return;
    const target = this.qualified(table.name, variant);
    const pk = table.primaryKey;
    const encoded = (name: string, row: Row) => this.encode(kindOf(table, name), row[name]);
    if (this.postgres) {
      const columns = [...pk, ...set];
      const assignments = set.map((name, i) => `${quoteIdent(name)} = u.c${pk.length + i}`).join(', ');
      yield* run(
        `UPDATE ${target} x SET ${assignments} FROM ${this.unnest(table, columns, 'u')} WHERE ${this.matchUnnested(pk, 'u')}`,
        columns.map((name) => rows.map((row) => encoded(name, row))),
      );
    } else {
      const assignments = set.map((name) => `${quoteIdent(name)} = ?`).join(', ');
      yield* runEach(
        `UPDATE ${target} SET ${assignments} WHERE ${this.matchEach(pk)}`,
        rows.map((row) => [...set, ...pk].map((name) => encoded(name, row))),
      );
    }
  }

  /** Deletes the rows whose `match` columns equal one of `keys`; every row when `match` is omitted. */
  *delete(table: TableSpec, variant: TableVariant = 'live', match?: { columns: readonly string[]; keys: readonly (readonly unknown[])[] }): Step<void> {
    const target = this.qualified(table.name, variant);
    if (!match) {
      yield* run(`DELETE FROM ${target}`);
    } else if (this.postgres) {
      if (match.keys.length === 0) return;
      yield* run(
        `DELETE FROM ${target} x USING ${this.unnest(table, match.columns, 'k')} WHERE ${this.matchUnnested(match.columns, 'k')}`,
        match.columns.map((_, i) => match.keys.map((k) => k[i])),
      );
    } else {
      yield* runEach(`DELETE FROM ${target} WHERE ${this.matchEach(match.columns)}`, match.keys);
    }
  }

  /**
   * Copies into `table` (every column) the rows of `source` (which has those columns too) that
   * satisfy `where`, a condition on the source's columns in SQL both databases accept; with
   * `match`, only the rows whose `match` columns equal one of its keys.
   */
  *insertFrom(
    table: TableSpec,
    source: TableSpec,
    where: string,
    variant: TableVariant = 'live',
    match?: { columns: readonly string[]; keys: readonly (readonly unknown[])[] },
  ): Step<void> {
    const target = this.qualified(table.name, variant);
    const from = this.qualified(source.name, variant);
    const names = table.columns.map((c) => quoteIdent(c.name));
    const insert = `INSERT INTO ${target} (${names.join(', ')})`;
    if (!match) {
      yield* run(`${insert} SELECT ${names.join(', ')} FROM ${from} WHERE ${where}`);
    } else if (this.postgres) {
      if (match.keys.length === 0) return;
      yield* run(
        `${insert} SELECT ${names.map((n) => `t.${n}`).join(', ')} FROM ${this.unnest(source, match.columns, 'k')} CROSS JOIN LATERAL (SELECT * FROM ${from} x WHERE ${this.matchUnnested(match.columns, 'k')} AND (${where})) t`,
        match.columns.map((_, i) => match.keys.map((k) => k[i])),
      );
    } else {
      yield* runEach(`${insert} SELECT ${names.join(', ')} FROM ${from} WHERE ${this.matchEach(match.columns)} AND (${where})`, match.keys);
    }
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

  /** Creates a projection's checkpoint at 0 unless it exists. */
  *ensureCheckpoint(name: string): Step<void> {
    yield* run(
      `INSERT INTO ${this.qualified(CHECKPOINTS_TABLE)} (name, position, updated_at) VALUES (${this.p(1)}, 0, ${this.p(2)}) ON CONFLICT (name) DO NOTHING`,
      [name, new Date().toISOString()],
    );
  }

  /** Every checkpoint row (projections, and the shadows of rebuilds in progress), by name. */
  *checkpoints(): Step<{ name: string; position: number; updatedAt: string; pausedUntil: string | null }[]> {
    const rows = yield* query<{ name: string; position: string | number; updated_at: string; paused_until: string | null }>(
      `SELECT name, position, updated_at, paused_until FROM ${this.qualified(CHECKPOINTS_TABLE)} ORDER BY name`,
    );
    const now = new Date().toISOString();
    return rows.map((r) => ({
      name: r.name,
      position: Number(r.position),
      updatedAt: r.updated_at,
      pausedUntil: r.paused_until !== null && r.paused_until > now ? r.paused_until : null,
    }));
  }

  *deleteCheckpoint(name: string): Step<void> {
    yield* run(`DELETE FROM ${this.qualified(CHECKPOINTS_TABLE)} WHERE name = ${this.p(1)}`, [name]);
  }
}
