import { Pool } from 'pg';
import { type EventStore } from '@rewind/event-store';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { maskConnectionString, PostgresEventStore, PostgresUnavailableError } from '@rewind/event-store/postgres';
import { EventStoreDbEventStore, EventStoreDbUnavailableError } from '@rewind/event-store/eventstoredb';
import { CliError, requireDatabase, type CommandContext } from './command';

/** The PostgreSQL schema of the event store, API keys and signing keys (the API's default, or REWIND_PG_SCHEMA). */
export const storeSchemaOf = (context: CommandContext) => context.config.pgSchema;

/** The configured event store (the embedded file, PostgreSQL or EventStoreDB, per REWIND_STORE), as the API opens it. */
export async function openEventStore(context: CommandContext, poolSize = 4): Promise<EventStore> {
  const { config } = context;
  if (config.store === 'eventstoredb') {
    try {
      return await EventStoreDbEventStore.open({ url: config.eventStoreDbUrl!, namespace: config.eventStoreDbNamespace });
    } catch (error) {
      if (error instanceof EventStoreDbUnavailableError) throw new CliError(error.message);
      throw error;
    }
  }
  if (config.store === 'sqlite') {
    requireDatabase(context);
    return new SqliteEventStore({ filename: context.databaseFile, synchronous: config.sqliteSynchronous });
  }
  try {
    return await PostgresEventStore.open({ connectionString: config.databaseUrl!, schema: storeSchemaOf(context), poolSize });
  } catch (error) {
    if (error instanceof PostgresUnavailableError) throw new CliError(error.message);
    throw error;
  }
}

/** A small pool on DATABASE_URL for the key stores; closed after `use`. */
export async function withPostgresPool<T>(context: CommandContext, use: (pool: Pool) => Promise<T>): Promise<T> {
  const url = context.config.databaseUrl!;
  const pool = new Pool({ connectionString: url, max: 2, application_name: 'rewind-cli' });
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1').catch((error: Error) => {
      throw new CliError(`Cannot reach PostgreSQL at ${maskConnectionString(url)} (${error.message}). Is the server running? Set DATABASE_URL to point at it.`);
    });
    return await use(pool);
  } finally {
    await pool.end();
  }
}
