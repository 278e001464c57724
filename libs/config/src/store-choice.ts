import type { EnvReader } from './env-reader';

export type StoreKind = 'sqlite' | 'postgres' | 'eventstoredb';

/** Where events live, as REWIND_STORE and its URLs say; the API, the worker and the CLI read it alike. */
export interface StoreChoice {
  /** `sqlite`: the embedded file; `postgres`: DATABASE_URL; `eventstoredb`: events on EVENTSTOREDB_URL, the rest in the embedded file. */
  store: StoreKind;
  /** PostgreSQL connection string (REWIND_STORE=postgres). */
  databaseUrl: string | undefined;
  /** EventStoreDB / KurrentDB connection string (REWIND_STORE=eventstoredb). */
  eventStoreDbUrl: string | undefined;
  /** Prefix of every EventStoreDB stream Rewind writes. */
  eventStoreDbNamespace: string;
}

const ESDB_URL = /^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kdb|kdb\+discover):\/\/\S+$/;

export function readStoreChoice(read: EnvReader, env: NodeJS.ProcessEnv, refuse: (message: string) => Error): StoreChoice {
  const store = read.oneOf('REWIND_STORE', ['sqlite', 'postgres', 'eventstoredb'] as const, 'sqlite');
  const databaseUrl = env.DATABASE_URL || undefined;
  if (store === 'postgres' && !databaseUrl) {
    throw refuse('REWIND_STORE=postgres needs DATABASE_URL, e.g. DATABASE_URL=postgres://user:password@127.0.0.1:5432/rewind.');
  }
  const eventStoreDbUrl = read.matching('EVENTSTOREDB_URL', undefined, ESDB_URL, 'use an EventStoreDB connection string, e.g. esdb://127.0.0.1:2113?tls=false');
  if (store === 'eventstoredb' && !eventStoreDbUrl) {
    throw refuse('REWIND_STORE=eventstoredb needs EVENTSTOREDB_URL, e.g. EVENTSTOREDB_URL=esdb://127.0.0.1:2113?tls=false.');
  }
  const eventStoreDbNamespace = read.matching(
    'REWIND_ESDB_NAMESPACE',
    'rewind',
    /^[a-z][a-z0-9_-]{0,62}$/,
    'use 1-63 lower-case letters, digits, _ or -, starting with a letter',
  );
  return { store, databaseUrl, eventStoreDbUrl, eventStoreDbNamespace };
}

/** The connections one process may open to PostgreSQL, per pool (see "Connection budget" in docs/operations/configuration.md). */
export interface PostgresPools {
  /** REWIND_PG_POOL_SIZE: the pool of the events and every store beside them (default 20). */
  pgPoolSize: number;
  /** REWIND_PG_READ_MODEL_POOL_SIZE: the read models' own pool (default REWIND_PG_POOL_SIZE, from 2 to 10). */
  pgReadModelPoolSize: number;
}

export function readPostgresPools(read: EnvReader): PostgresPools {
  const pgPoolSize = read.integer('REWIND_PG_POOL_SIZE', 20, 1, 1000);
  // At least 2: the read models' migrations run on one connection of the pool while another holds their lock.
  return { pgPoolSize, pgReadModelPoolSize: read.integer('REWIND_PG_READ_MODEL_POOL_SIZE', Math.max(2, Math.min(pgPoolSize, 10)), 2, 1000) };
}
