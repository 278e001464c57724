import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreChoice, StoreKind } from '@rewind/config';
import type { EventStore, PruneSnapshotsOptions, PruneSnapshotsResult, SealStore } from '@rewind/event-store';
import { pruneSqliteSnapshots, SqliteEventStore, SqliteSealStore } from '@rewind/event-store/sqlite';
import type * as PostgresEvents from '@rewind/event-store/postgres';
import type * as EventStoreDbEvents from '@rewind/event-store/eventstoredb';
import type { MemoryPolicyStore } from '@rewind/memory';
import type * as PostgresMemory from '@rewind/memory/postgres';
import type { CheckpointStore } from '@rewind/event-store/subscriptions';
import type { KafkaSigningSecretStore } from '@rewind/messaging';
import { SqliteCheckpointStore } from '@rewind/event-store/sqlite';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import type * as PostgresMessaging from '@rewind/messaging/postgres';
import type * as Projections from '@rewind/projections';
import type { ReadModelConfig, ReadModelDatabase } from '@rewind/projections';
import type { ApiKeyStore, DataKeyStore, EncryptionPolicyStore, RetentionPolicyStore } from '@rewind/tenancy';
import { SqliteApiKeyStore, SqliteDataKeyStore } from '@rewind/tenancy/sqlite';
import { parseMasterKey } from '@rewind/tenancy';
import type * as PostgresTenancy from '@rewind/tenancy/postgres';
import { loadOptional } from './load-optional';

// PostgreSQL and EventStoreDB are loaded when a backend of their kind opens: their drivers are
// optional peers, which library mode (SQLite) does not install. The read models (TypeORM) load at
// their first use, from the caller's module system (load-optional.ts).
const POSTGRES = { install: ['pg'], usedFor: 'PostgreSQL (REWIND_STORE=postgres)' } as const;
const loadPostgresAdapters = async () => {
  const [events, memory, messaging, tenancy] = await Promise.all([
    loadOptional<typeof PostgresEvents>({ specifier: '@rewind/event-store/postgres', ...POSTGRES }),
    loadOptional<typeof PostgresMemory>({ specifier: '@rewind/memory/postgres', ...POSTGRES }),
    loadOptional<typeof PostgresMessaging>({ specifier: '@rewind/messaging/postgres', ...POSTGRES }),
    loadOptional<typeof PostgresTenancy>({ specifier: '@rewind/tenancy/postgres', ...POSTGRES }),
  ]);
  return { ...events, ...memory, ...messaging, ...tenancy };
};
const loadEventStoreDbAdapter = () =>
  loadOptional<typeof EventStoreDbEvents>({
    specifier: '@rewind/event-store/eventstoredb',
    install: ['@eventstore/db-client'],
    usedFor: 'EventStoreDB (REWIND_STORE=eventstoredb)',
  });
const loadProjections = () =>
  loadOptional<typeof Projections>({ specifier: '@rewind/projections', install: ['@rewind/projections'], usedFor: 'the read models (projections)' });

/** What opening a backend reads: the store choice and the settings of its adapters (RewindConfig and WorkerConfig both fit). */
export interface BackendConfig extends StoreChoice {
  /** REWIND_DATA_DIR: holds the embedded file. */
  dataDir: string;
  /** Connections of the PostgreSQL pool every store but the read models shares. */
  pgPoolSize: number;
  /** Connections of the read models' own pool. */
  pgReadModelPoolSize: number;
  sqliteSynchronous: 'FULL' | 'NORMAL' | 'EXTRA';
  /** REWIND_MASTER_KEY, when set: snapshot seals are made with keys derived from it (see sealingMasterKey). */
  masterKey?: string | undefined;
}

/** Choices of the process that opens the backend (the CLI's smaller pools and other schemas); the API and the worker take the defaults. */
export interface BackendOptions {
  /** PostgreSQL schema of the events and the stores beside them (default `rewind`). */
  schema?: string;
  /** PostgreSQL schema of the read models (default `rewind_read`). */
  readModelSchema?: string;
  /** Connections of the event store's pool (default `pgPoolSize`). */
  poolSize?: number;
  /** Connections of the read models' own pool (default `pgReadModelPoolSize`). */
  readModelPoolSize?: number;
  /** On SQLite: refuse to create the embedded file (MissingDatabaseError), so that a read never leaves an empty database behind. */
  mustExist?: boolean;
}

/** `mustExist` was asked and the embedded file of the events is not there. */
export class MissingDatabaseError extends Error {
  constructor(readonly file: string) {
    super(`no Rewind database at ${file}: set REWIND_DATA_DIR to the API's data directory (default ./data).`);
    this.name = 'MissingDatabaseError';
  }
}

type Closable = { close(): void | Promise<void> };

/** Data keys with the encryption and retention policies kept beside them. */
export type DataKeys = DataKeyStore & EncryptionPolicyStore & RetentionPolicyStore & Closable;

/**
 * Every store a Rewind process needs, for the configured store kind, each opened once:
 * `close()` closes each once, in the reverse order of opening (the PostgreSQL pool, which
 * the others borrow, last).
 */
export interface Backend {
  readonly kind: StoreKind;
  /** `${REWIND_DATA_DIR}/rewind.db`: every store on SQLite, all but the events on EventStoreDB, unused on PostgreSQL. */
  readonly databaseFile: string;
  /** The events and their snapshots. */
  readonly events: EventStore;
  /** Subscriber checkpoints and leases (relay, rollback saga, memory indexer's shared progress). */
  readonly checkpoints: CheckpointStore;
  /** The audit hash chains' seals. */
  readonly seals: SealStore;
  readonly dataKeys: DataKeys;
  readonly apiKeys: ApiKeyStore;
  /** The keys Kafka commands are signed with. */
  readonly signingKeys: KafkaSigningSecretStore;
  /** Memory policies shared by every process (PostgreSQL); null: they live in the memory index file, which the memory runtime opens. */
  readonly memoryPolicies: (MemoryPolicyStore & Closable) | null;
  /** The projections' database (TypeORM, migrations applied), opened at the first call. */
  readModels(): Promise<ReadModelDatabase>;
  /** Event-store migrations not applied yet (PostgreSQL; the other stores apply their own migrations when opened or first used). */
  pendingMigrations(): Promise<string[]>;
  /** Snapshot retention in the events' store. */
  pruneSnapshots(options: PruneSnapshotsOptions): Promise<PruneSnapshotsResult>;
  /** Where the events and the read models live, for people (passwords masked). */
  describe(): string;
  close(): Promise<void>;
}

/** The embedded database file of a data directory (the one place its name is written). */
export const embeddedDatabaseFile = (dataDir: string): string => join(dataDir, 'rewind.db');

/** Parts in the order they were opened; closed once each, newest first, every one tried. */
class OpenedParts {
  private readonly parts: Closable[] = [];
  private closing: Promise<void> | undefined;

  add<T extends Closable>(part: T): T {
    this.parts.push(part);
    return part;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      let failure: unknown;
      for (const part of this.parts.splice(0).reverse()) {
        await Promise.resolve()
          .then(() => part.close())
          .catch((error: unknown) => (failure ??= error));
      }
      if (failure !== undefined) throw failure;
    })();
    return this.closing;
  }

  /** Runs an opening step; if it fails, what was opened before it is closed. */
  async opening<T>(open: () => Promise<T> | T): Promise<T> {
    try {
      return await open();
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }
}

interface BackendParts {
  events: EventStore;
  checkpoints: CheckpointStore;
  seals: SealStore;
  dataKeys: DataKeys;
  apiKeys: ApiKeyStore;
  signingKeys: KafkaSigningSecretStore;
  memoryPolicies: (MemoryPolicyStore & Closable) | null;
}

interface Composition {
  kind: StoreKind;
  databaseFile: string;
  readModelConfig: ReadModelConfig;
  pendingMigrations(): Promise<string[]>;
  pruneSnapshots(options: PruneSnapshotsOptions): Promise<PruneSnapshotsResult>;
  describe(): string;
}

function assemble(composition: Composition, parts: BackendParts, opened: OpenedParts): Backend {
  let readModels: Promise<ReadModelDatabase> | undefined;
  return {
    kind: composition.kind,
    databaseFile: composition.databaseFile,
    ...parts,
    readModels() {
      // Loaded at the first call: library mode and most CLI commands never load TypeORM.
      readModels ??= loadProjections()
        .then(({ ReadModelDatabase }) => ReadModelDatabase.open(composition.readModelConfig))
        .then(
          (db) => opened.add(db),
          (error: unknown) => {
            readModels = undefined;
            throw error;
          },
        );
      return readModels;
    },
    pendingMigrations: () => composition.pendingMigrations(),
    pruneSnapshots: (options) => composition.pruneSnapshots(options),
    describe: () => composition.describe(),
    close: () => opened.close(),
  };
}

/** The stores kept in the embedded file beside the events (SQLite), or instead of them (EventStoreDB). */
function openFileStores(file: string, opened: OpenedParts): Omit<BackendParts, 'events'> {
  return {
    checkpoints: opened.add(new SqliteCheckpointStore(file)),
    seals: opened.add(new SqliteSealStore(file)),
    dataKeys: opened.add(new SqliteDataKeyStore(file)),
    apiKeys: opened.add(new SqliteApiKeyStore(file)),
    signingKeys: opened.add(new SqliteKafkaSigningSecretStore(file)),
    // In the memory index file (REWIND_MEMORY_*), which `rewind memory rebuild` replaces: the memory runtime's to open.
    memoryPolicies: null,
  };
}

/**
 * The master key snapshot seals are derived from: REWIND_MASTER_KEY only, not the key file the
 * embedded mode creates beside the database (whoever has the one has the other). Without it the
 * keys stored in the database seal, as before.
 */
const sealingMasterKey = (config: { masterKey?: string | undefined }): Buffer | undefined => (config.masterKey ? parseMasterKey(config.masterKey) : undefined);

const sqliteReadModels = (file: string, config: Pick<BackendConfig, 'sqliteSynchronous'>): ReadModelConfig => ({
  type: 'sqlite',
  filename: file,
  synchronous: config.sqliteSynchronous,
});

/** Everything in `<dataDir>/rewind.db`; synchronous, as SQLite opens (library mode needs no await). */
export function openSqliteBackend(config: {
  dataDir: string;
  sqliteSynchronous?: BackendConfig['sqliteSynchronous'];
  masterKey?: string | undefined;
}): Backend {
  const file = embeddedDatabaseFile(config.dataDir);
  const synchronous = config.sqliteSynchronous ?? 'FULL';
  const opened = new OpenedParts();
  try {
    const masterKey = sealingMasterKey(config);
    const events = opened.add(new SqliteEventStore({ filename: file, synchronous, ...(masterKey ? { masterKey } : {}) }));
    const parts = { events, ...openFileStores(file, opened) };
    const composition: Composition = {
      kind: 'sqlite',
      databaseFile: file,
      readModelConfig: sqliteReadModels(file, { sqliteSynchronous: synchronous }),
      pendingMigrations: async () => [],
      pruneSnapshots: async (options) => pruneSqliteSnapshots(events.db, options),
      describe: () => file,
    };
    return assemble(composition, parts, opened);
  } catch (error) {
    void opened.close().catch(() => undefined);
    throw error;
  }
}

async function openPostgresBackend(config: BackendConfig, options: BackendOptions): Promise<Backend> {
  const url = config.databaseUrl!;
  const {
    maskConnectionString,
    pendingMigrations,
    PostgresEventStore,
    PostgresSealStore,
    prunePostgresSnapshots,
    PostgresPolicyStore,
    PostgresCheckpointStore,
    PostgresKafkaSigningSecretStore,
    PostgresApiKeyStore,
    PostgresDataKeyStore,
  } = await loadPostgresAdapters();
  const opened = new OpenedParts();
  const events = opened.add(
    await PostgresEventStore.open({
      connectionString: url,
      ...(config.masterKey ? { masterKey: sealingMasterKey(config)! } : {}),
      poolSize: options.poolSize ?? config.pgPoolSize,
      ...(options.schema ? { schema: options.schema } : {}),
    }),
  );
  const { pool, schema } = events;
  const parts = await opened.opening(async () => ({
    events,
    checkpoints: opened.add(new PostgresCheckpointStore(pool, Date.now, schema)),
    seals: opened.add(new PostgresSealStore(pool, schema)),
    dataKeys: opened.add(await PostgresDataKeyStore.open(pool, schema)),
    apiKeys: opened.add(await PostgresApiKeyStore.open(pool, schema)),
    signingKeys: opened.add(new PostgresKafkaSigningSecretStore(pool, schema)),
    memoryPolicies: opened.add(new PostgresPolicyStore(pool, schema)),
  }));
  const readSchema = options.readModelSchema ?? 'rewind_read'; // projections' DEFAULT_READ_MODEL_SCHEMA, not loaded before its first use
  return assemble(
    {
      kind: 'postgres',
      databaseFile: embeddedDatabaseFile(config.dataDir),
      readModelConfig: { type: 'postgres', url, schema: readSchema, poolSize: options.readModelPoolSize ?? config.pgReadModelPoolSize },
      pendingMigrations: () => pendingMigrations(pool, schema),
      pruneSnapshots: (prune) => prunePostgresSnapshots(pool, schema, prune),
      describe: () => `PostgreSQL ${maskConnectionString(url)} (events in schema ${schema}, read models in ${readSchema})`,
    },
    parts,
    opened,
  );
}

async function openEventStoreDbBackend(config: BackendConfig): Promise<Backend> {
  const file = embeddedDatabaseFile(config.dataDir);
  const { EventStoreDbEventStore, maskEventStoreDbUrl } = await loadEventStoreDbAdapter();
  const opened = new OpenedParts();
  const events = opened.add(await EventStoreDbEventStore.open({ url: config.eventStoreDbUrl!, namespace: config.eventStoreDbNamespace }));
  const parts = await opened.opening(() => ({ events, ...openFileStores(file, opened) }));
  return assemble(
    {
      kind: 'eventstoredb',
      databaseFile: file,
      readModelConfig: sqliteReadModels(file, config),
      pendingMigrations: async () => [],
      pruneSnapshots: (prune) => events.pruneSnapshots(prune),
      describe: () => `EventStoreDB ${maskEventStoreDbUrl(config.eventStoreDbUrl!)} (read models in ${file})`,
    },
    parts,
    opened,
  );
}

/**
 * Opens the configured backend: the embedded file (sqlite), PostgreSQL (postgres: one pool
 * the stores share, read models in their own schema), or EventStoreDB for the events with
 * everything else in the embedded file (eventstoredb). The one place adapters are chosen.
 * An unreachable database rejects with PostgresUnavailableError / EventStoreDbUnavailableError; a
 * driver that is not installed (pg, @eventstore/db-client: optional peers) with MissingOptionalPackageError.
 */
export async function openBackend(config: BackendConfig, options: BackendOptions = {}): Promise<Backend> {
  switch (config.store) {
    case 'postgres':
      return openPostgresBackend(config, options);
    case 'eventstoredb':
      return openEventStoreDbBackend(config);
    case 'sqlite':
      if (options.mustExist && !existsSync(embeddedDatabaseFile(config.dataDir))) throw new MissingDatabaseError(embeddedDatabaseFile(config.dataDir));
      return openSqliteBackend(config);
  }
}
