import { LRUCache } from 'lru-cache';
import type Database from 'better-sqlite3';
import { SqliteDatabase, useWriteAheadLog } from '@rewind/event-store/sqlite';
import { realpathSync } from 'node:fs';
import type { Pool, PoolClient } from 'pg';
import { copyRows } from './pg-copy';
import { Dialect, runAsync, runSync, type DbOp, type Step } from './sql';

/**
 * A dedicated connection for one writer (a projection runner or a rebuild). Work is a
 * generator of SQL operations (see `sql.ts`), run synchronously on SQLite and asynchronously
 * on PostgreSQL.
 */
export interface WriterConnection {
  readonly dialect: Dialect;
  /**
   * Runs `body` in one write transaction (SQLite: BEGIN IMMEDIATE, start to end without
   * yielding; PostgreSQL: BEGIN … COMMIT). With `durable: false` the commit does not wait for
   * the disk (SQLite synchronous=NORMAL, PostgreSQL synchronous_commit=off): a power loss may
   * undo the last such transactions, never part of one. For work that is redone from the log
   * anyway (a rebuild's shadow tables).
   */
  transaction<T>(body: () => Step<T>, options?: { durable?: boolean }): Promise<T>;
  /** Runs `body` outside an explicit transaction. */
  run<T>(body: () => Step<T>): Promise<T>;
  /**
   * Takes an exclusive lock named by `scope` and `name` without waiting; false when another
   * holder has it. PostgreSQL: a session-level advisory lock held by this connection (other
   * processes see it). SQLite: held by this process (one writer per file).
   */
  tryLock(scope: string, name: string): Promise<boolean>;
  unlock(scope: string, name: string): Promise<void>;
  /** False once the connection was lost (its PostgreSQL locks went with it). */
  readonly healthy: boolean;
  close(): Promise<void>;
}

const processLocks = new Map<string, object>();
/** Page cache of a writer connection: batches touch many b-tree pages of several tables. */
const CACHE_KB = 65_536;

export interface SqliteWriterOptions {
  filename: string;
  synchronous?: 'FULL' | 'NORMAL' | 'EXTRA';
  busyTimeoutMs?: number;
}

export class SqliteWriterConnection implements WriterConnection {
  readonly dialect = new Dialect('sqlite');
  readonly db: Database.Database;
  private readonly statements = new LRUCache<string, Database.Statement>({ max: 500 });
  private readonly held = new Set<string>();
  private readonly lockPrefix: string;

  private readonly synchronous: string;

  constructor(options: SqliteWriterOptions) {
    this.db = new SqliteDatabase(options.filename);
    this.synchronous = options.synchronous ?? 'FULL';
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    useWriteAheadLog(this.db);
    this.db.pragma(`synchronous = ${this.synchronous}`);
    this.db.pragma(`cache_size = -${CACHE_KB}`);
    let file = options.filename;
    try {
      file = realpathSync(options.filename);
    } catch {
      // ':memory:' or not created yet: the name as given
    }
    this.lockPrefix = file;
  }

  get healthy(): boolean {
    return this.db.open;
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private execute = (op: DbOp): unknown => {
    switch (op.kind) {
      case 'query':
        return this.statement(op.sql).all(...bindable(op.params));
      case 'queryEach': {
        // Batch parameters come encoded (Dialect.encode): bound as they are.
        const statement = this.statement(op.sql);
        const rows: unknown[] = [];
        for (const params of op.params) for (const row of statement.all(...params)) rows.push(row);
        return rows;
      }
      case 'run':
        this.statement(op.sql).run(...bindable(op.params));
        return undefined;
      case 'runEach': {
        const statement = this.statement(op.sql);
        for (const params of op.params) statement.run(...params);
        return undefined;
      }
      case 'exec':
        // DDL changes the schema: prepared statements are re-prepared by SQLite as needed.
        this.db.exec(op.sql);
        return undefined;
      case 'copy':
        throw new Error('COPY is a PostgreSQL operation.');
    }
  };

  async transaction<T>(body: () => Step<T>, options: { durable?: boolean } = {}): Promise<T> {
    if (options.durable !== false) return this.db.transaction(() => runSync(body(), this.execute)).immediate();
    this.db.pragma('synchronous = NORMAL');
    try {
      return this.db.transaction(() => runSync(body(), this.execute)).immediate();
    } finally {
      this.db.pragma(`synchronous = ${this.synchronous}`);
    }
  }

  async run<T>(body: () => Step<T>): Promise<T> {
    return runSync(body(), this.execute);
  }

  async tryLock(scope: string, name: string): Promise<boolean> {
    const key = `${this.lockPrefix}#${scope}#${name}`;
    const owner = processLocks.get(key);
    if (owner && owner !== this) return false;
    processLocks.set(key, this);
    this.held.add(key);
    return true;
  }

  async unlock(scope: string, name: string): Promise<void> {
    const key = `${this.lockPrefix}#${scope}#${name}`;
    if (processLocks.get(key) === this) processLocks.delete(key);
    this.held.delete(key);
  }

  async close(): Promise<void> {
    for (const key of this.held) if (processLocks.get(key) === this) processLocks.delete(key);
    this.held.clear();
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}

function bindable(params: readonly unknown[]): unknown[] {
  return params.map((value) => (value === undefined ? null : typeof value === 'boolean' ? (value ? 1 : 0) : value));
}

export class PostgresWriterConnection implements WriterConnection {
  readonly dialect: Dialect;
  private broken: Error | null = null;
  private closed = false;
  /** The server went away: the session (and its advisory locks) is gone. */
  private readonly onError = (error: Error) => {
    this.broken = error;
  };

  private constructor(
    private readonly client: PoolClient,
    schema: string,
  ) {
    this.dialect = new Dialect('postgres', schema);
    client.on('error', this.onError);
  }

  static async open(pool: Pool, schema: string): Promise<PostgresWriterConnection> {
    const client = await pool.connect();
    return new PostgresWriterConnection(client, schema);
  }

  get healthy(): boolean {
    return this.broken === null && !this.closed;
  }

  private execute = async (op: DbOp): Promise<unknown> => {
    switch (op.kind) {
      case 'query':
        return (await this.client.query({ text: op.sql, values: op.params as unknown[] })).rows;
      case 'queryEach': {
        const rows: unknown[] = [];
        for (const params of op.params) rows.push(...(await this.client.query({ text: op.sql, values: params as unknown[] })).rows);
        return rows;
      }
      case 'run':
        await this.client.query({ text: op.sql, values: op.params as unknown[] });
        return undefined;
      case 'runEach':
        for (const params of op.params) await this.client.query({ text: op.sql, values: params as unknown[] });
        return undefined;
      case 'exec':
        await this.client.query(op.sql);
        return undefined;
      case 'copy':
        await copyRows(this.client, op.target, op.columns, op.table, op.rows);
        return undefined;
    }
  };

  async transaction<T>(body: () => Step<T>, options: { durable?: boolean } = {}): Promise<T> {
    try {
      // One round trip: a batch that need not wait for the disk says so with its BEGIN (two
      // statements in one simple query; a failure of either is rolled back below).
      await this.client.query(options.durable === false ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
      const result = await runAsync(body(), this.execute);
      await this.client.query('COMMIT');
      return result;
    } catch (error) {
      await this.client.query('ROLLBACK').catch((rollbackError: Error) => {
        this.broken ??= rollbackError;
      });
      throw error;
    }
  }

  async run<T>(body: () => Step<T>): Promise<T> {
    return runAsync(body(), this.execute);
  }

  async tryLock(scope: string, name: string): Promise<boolean> {
    const result = await this.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked', [
      `rewind.${scope}.${this.dialect.schema}`,
      name,
    ]);
    return result.rows[0]?.locked === true;
  }

  async unlock(scope: string, name: string): Promise<void> {
    if (!this.healthy) return;
    await this.client.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', [`rewind.${scope}.${this.dialect.schema}`, name]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.client.off('error', this.onError);
    // Session-level advisory locks end with the session; a broken client is not reused.
    if (this.broken) {
      this.client.release(this.broken);
      return;
    }
    try {
      await this.client.query('SELECT pg_advisory_unlock_all()');
      this.client.release();
    } catch (error) {
      this.client.release(error as Error);
    }
  }
}
