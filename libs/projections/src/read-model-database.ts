import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ExponentialBackoff, handleWhen, noJitterGenerator, retry } from 'cockatiel';
import type { Pool } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { maskConnectionString, SCHEMA_MIGRATION_LOCK } from '@rewind/event-store/postgres';
import { SqliteDatabase, useWriteAheadLog } from '@rewind/event-store/sqlite';
import { PostgresWriterConnection, SqliteWriterConnection, type WriterConnection } from './connection';
import { READ_MODEL_ENTITIES } from './entities';
import { CreateReadModels1763769600000 } from './migrations/1763769600000-create-read-models';
import { AuditCursorByEvent1764201600000 } from './migrations/1764201600000-audit-cursor-by-event';
import { PROJECTION_NAMES } from './projections';
import { Dialect, runAsync, type Step } from './sql';

/** Where the read models live: the embedded SQLite file, or a PostgreSQL schema. */
export type ReadModelConfig =
  | {
      type: 'sqlite';
      /** The same file as the embedded event store: `${REWIND_DATA_DIR}/rewind.db`. */
      filename: string;
      synchronous?: 'FULL' | 'NORMAL' | 'EXTRA';
      busyTimeoutMs?: number;
    }
  | {
      type: 'postgres';
      url: string;
      /** Default `rewind_read` (the event store uses `rewind`). */
      schema?: string;
      poolSize?: number;
      connectionTimeoutMs?: number;
    };

export const DEFAULT_READ_MODEL_SCHEMA = 'rewind_read';
export const READ_MODEL_MIGRATIONS = [CreateReadModels1763769600000, AuditCursorByEvent1764201600000];
const MIGRATIONS_TABLE = 'read_model_migrations';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The read-model database could not be opened or migrated. */
export class ReadModelUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReadModelUnavailableError';
  }
}

/** TypeORM options for the read models (also usable with the TypeORM CLI). Never `synchronize`: migrations make the schema. */
export function readModelDataSourceOptions(config: ReadModelConfig): DataSourceOptions {
  const common = {
    entities: READ_MODEL_ENTITIES,
    migrations: READ_MODEL_MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    logging: false,
  } as const;
  if (config.type === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      // Rewind's better-sqlite3 (installed as rewind-better-sqlite3: see SqliteDatabase), not one TypeORM would require by name.
      driver: SqliteDatabase,
      database: config.filename,
      timeout: config.busyTimeoutMs ?? 5000,
      prepareDatabase: (db: { pragma(source: string, options?: { simple: boolean }): unknown }) => {
        useWriteAheadLog(db);
        db.pragma(`synchronous = ${config.synchronous ?? 'FULL'}`);
      },
    };
  }
  return {
    ...common,
    type: 'postgres',
    url: config.url,
    schema: config.schema ?? DEFAULT_READ_MODEL_SCHEMA,
    poolSize: config.poolSize ?? 10,
    applicationName: 'rewind-read-models',
    connectTimeoutMS: config.connectionTimeoutMs ?? 10_000,
  };
}

export function describeReadModels(config: ReadModelConfig): string {
  return config.type === 'sqlite'
    ? `SQLite file ${config.filename}`
    : `PostgreSQL ${maskConnectionString(config.url)} (schema ${config.schema ?? DEFAULT_READ_MODEL_SCHEMA})`;
}

/** Another process migrating the same SQLite file holds its lock: look again, 20 tries in all (about 8 s). */
const SQLITE_BUSY_RETRY = retry(
  handleWhen((error) => {
    const code = (error as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (error as { code?: string }).code;
    // TypeORM reads the pending migrations before its transaction: a process that applied them in between
    // makes ours fail with "table … already exists" (seen with 4 processes opening a fresh file at once);
    // looking again finds them recorded.
    return String(code).startsWith('SQLITE_BUSY') || /already exists/.test((error as Error).message ?? '');
  }),
  { maxAttempts: 19, backoff: new ExponentialBackoff({ generator: noJitterGenerator, initialDelay: 50, maxDelay: 500 }) },
);

/**
 * The read-model database: a TypeORM DataSource (queries, migrations) plus dedicated writer
 * connections for the projection runners and rebuilds.
 */
export class ReadModelDatabase {
  readonly dialect: Dialect;

  private constructor(
    readonly config: ReadModelConfig,
    readonly dataSource: DataSource,
  ) {
    this.dialect = config.type === 'sqlite' ? new Dialect('sqlite') : new Dialect('postgres', config.schema ?? DEFAULT_READ_MODEL_SCHEMA);
  }

  /** Opens the database and applies pending migrations (serialized between processes). */
  static async open(config: ReadModelConfig, options: { migrate?: boolean } = {}): Promise<ReadModelDatabase> {
    if (config.type === 'postgres' && !SCHEMA_NAME.test(config.schema ?? DEFAULT_READ_MODEL_SCHEMA)) {
      throw new ReadModelUnavailableError(`Invalid read-model schema name "${config.schema}": use lower-case letters, digits and _.`);
    }
    if (config.type === 'sqlite' && config.filename !== ':memory:') mkdirSync(dirname(config.filename), { recursive: true });
    const dataSource = new DataSource(readModelDataSourceOptions(config));
    try {
      await dataSource.initialize();
    } catch (error) {
      throw new ReadModelUnavailableError(`Cannot open the read models in ${describeReadModels(config)}: ${(error as Error).message}`, { cause: error });
    }
    const db = new ReadModelDatabase(config, dataSource);
    try {
      if (options.migrate !== false) await db.migrate();
      await db.ensureCheckpoints();
    } catch (error) {
      await dataSource.destroy().catch(() => undefined);
      if (error instanceof ReadModelUnavailableError) throw error;
      throw new ReadModelUnavailableError(`Cannot prepare the read models in ${describeReadModels(config)}: ${(error as Error).message}`, { cause: error });
    }
    return db;
  }

  get description(): string {
    return describeReadModels(this.config);
  }

  /** The pg pool behind TypeORM (PostgreSQL only). */
  private get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  private async migrate(): Promise<void> {
    if (this.config.type === 'postgres') {
      const client = await this.pool.connect();
      try {
        // The schema's lock too: the stores' migrations create the same schema when the read models share theirs.
        const locks = [SCHEMA_MIGRATION_LOCK, 'rewind.read-models.migrate'];
        for (const lock of locks) await client.query(`SELECT pg_advisory_lock(hashtext($1), hashtext($2))`, [lock, this.dialect.schema]);
        try {
          await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.dialect.schema}"`);
          await this.dataSource.runMigrations({ transaction: 'all' });
        } finally {
          for (const lock of locks.reverse()) await client.query(`SELECT pg_advisory_unlock(hashtext($1), hashtext($2))`, [lock, this.dialect.schema]);
        }
      } finally {
        client.release();
      }
      return;
    }
    // SQLite: another process may be migrating the same file; its lock makes ours fail, then we look again.
    await SQLITE_BUSY_RETRY.execute(() => this.dataSource.runMigrations({ transaction: 'all' }));
  }

  private async ensureCheckpoints(): Promise<void> {
    for (const name of PROJECTION_NAMES) await this.run(this.dialect.ensureCheckpoint(name));
  }

  /** Runs SQL operations (single queries and statements) on the DataSource's connections, outside a writer's. */
  private run<T>(body: Step<T>): Promise<T> {
    return runAsync(body, async (op) => {
      if (op.kind === 'query' || op.kind === 'run') return this.dataSource.query(op.sql, [...op.params]);
      throw new Error(`A "${op.kind}" operation needs a writer connection.`);
    });
  }

  /** A dedicated connection for a writer; close it when done. */
  async connect(): Promise<WriterConnection> {
    if (this.config.type === 'sqlite') {
      return new SqliteWriterConnection({ filename: this.config.filename, synchronous: this.config.synchronous, busyTimeoutMs: this.config.busyTimeoutMs });
    }
    try {
      return await PostgresWriterConnection.open(this.pool, this.dialect.schema!);
    } catch (error) {
      throw new ReadModelUnavailableError(`Cannot reach PostgreSQL for the read models at ${describeReadModels(this.config)}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /** A projection's checkpoint (0 before its first batch), read on the shared pool: no writer connection is taken or held for it. */
  async checkpoint(name: string): Promise<number> {
    return (await this.run(this.dialect.checkpoint(name))) ?? 0;
  }

  /** Every checkpoint row (projections, and the shadows of rebuilds in progress). */
  async checkpoints(): Promise<{ name: string; position: number; updatedAt: string; pausedUntil: string | null }[]> {
    return this.run(this.dialect.checkpoints());
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
