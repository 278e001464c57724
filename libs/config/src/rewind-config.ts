import { join, resolve } from 'node:path';
import { loadEgressSettings, loadJsonCostLimits, type EgressSettings } from './egress-settings';
import { EnvReader } from './env-reader';
import { readPostgresPools, readStoreChoice, type PostgresPools, type StoreChoice } from './store-choice';
import { loadTrustProxy, type TrustProxy } from './trust-proxy';
import { loadWorkspaceSettings, type WorkspaceSettings } from './workspace-settings';

export interface RewindConfig extends StoreChoice, PostgresPools {
  /** REWIND_PG_SCHEMA: the PostgreSQL schema of the event store, API keys and signing keys (default rewind). */
  pgSchema: string;
  /** REWIND_READ_SCHEMA: the read models' PostgreSQL schema; undefined: the projections' default. */
  readModelSchema: string | undefined;
  port: number;
  host: string;
  /** REWIND_API_PROCESSES: API processes sharing the port on this host (default 1; more needs REWIND_STORE=postgres). */
  apiProcesses: number;
  dataDir: string;
  /** When set, the admin key; none is generated. */
  adminKey: string | undefined;
  snapshotEvery: number;
  snapshotEverySeconds: number;
  /** REWIND_STATE_CACHE_EVENTS: at most this many events' worth of session state kept in memory (default 2 000 000, ~0.9 GB). */
  stateCacheEvents: number;
  /**
   * REWIND_STATE_VIEWS_FROM_EVENTS: a cached session state of at least this many events keeps its sealed history in
   * the snapshot segments, read as a write needs it (default 4 096; 0: every state whole, its history in the heap).
   */
  stateViewsFromEvents: number;
  maxBodyBytes: number;
  sqliteSynchronous: 'FULL' | 'NORMAL' | 'EXTRA';
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  /** /health/ready fails when a subscriber of the global log is behind without moving for longer than this. */
  readyStallSeconds: number;
  /** With KAFKA_BROKERS set: the events topic whose relay lag /metrics reports. */
  relayTopic: string | null;
  /** Run the projection runners in this process (false: a worker runs them; queries still read the tables). */
  runProjections: boolean;
  /** Requests per second each API key may make, refilling its token bucket (0: no limit). */
  rateLimitPerSecond: number;
  /** The bucket's size: requests a key may make at once after a quiet spell. */
  rateLimitBurst: number;
  /** REWIND_ROLLBACK_LEASE_MS (PostgreSQL): how long a rollback's lease lasts without renewal; a live process takes over a dead one's rollbacks within about 4/3 of it. */
  rollbackLeaseMs: number;
  /** How often new events are sealed into the audit hash chains, in ms (0: only by `rewind audit digest`). */
  auditSealIntervalMs: number;
  /** Wraps the data keys of encrypted fields: REWIND_MASTER_KEY (64 hex digits or base64 of 32 bytes)... */
  masterKey: string | undefined;
  /** ...or this file (REWIND_MASTER_KEY_FILE; default <data dir>/master.key, created on first use). */
  masterKeyFile: string;
  /** REWIND_WORKSPACE_ROOT: this process's saga can undo workspace changes (the worker makes them); null: off. */
  workspace: WorkspaceSettings | null;
  /** REWIND_EGRESS_*: where compensations may go. */
  egress: EgressSettings;
  /** REWIND_MAX_JSON_KEYS_PER_OBJECT and REWIND_MAX_JSON_NODES: JSON shapes refused before parsing. */
  jsonCostLimits: { maxKeysPerObject: number; maxNodes: number };
  /** Failed authentications each source address may make at once, and refilled per second (0: no throttling). */
  authFailures: { burst: number; perSecond: number };
  /** REWIND_TRUST_PROXY: the proxies whose X-Forwarded-For names the client (false: the connection's address). */
  trustProxy: TrustProxy;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads configuration from the environment; every variable is documented in docs/operations/configuration.md. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): RewindConfig {
  const read = new EnvReader(env, (message) => new ConfigError(message));
  const adminKey = env.REWIND_ADMIN_KEY || undefined;
  if (adminKey !== undefined && adminKey.length < 16) {
    throw new ConfigError('REWIND_ADMIN_KEY is too short: use at least 16 characters (e.g. `openssl rand -hex 24`).');
  }
  const choice = readStoreChoice(read, env, (message) => new ConfigError(message));
  return {
    ...choice,
    ...readPostgresPools(read),
    pgSchema: read.raw('REWIND_PG_SCHEMA') ?? 'rewind',
    readModelSchema: read.raw('REWIND_READ_SCHEMA'),
    port: read.integer('PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    apiProcesses: read.integer('REWIND_API_PROCESSES', 1, 1, 64),
    dataDir: resolve(env.REWIND_DATA_DIR || './data'),
    adminKey,
    snapshotEvery: read.integer('REWIND_SNAPSHOT_EVERY', 100, 0, 1_000_000),
    snapshotEverySeconds: read.integer('REWIND_SNAPSHOT_EVERY_SECONDS', 0, 0, 86_400),
    stateCacheEvents: read.integer('REWIND_STATE_CACHE_EVENTS', 2_000_000, 1_000, 1_000_000_000),
    stateViewsFromEvents: read.integer('REWIND_STATE_VIEWS_FROM_EVENTS', 4_096, 0, 1_000_000_000),
    maxBodyBytes: read.integer('REWIND_MAX_BODY_BYTES', 1_048_576, 1024, 100 * 1_048_576),
    sqliteSynchronous: read.oneOf('REWIND_SQLITE_SYNCHRONOUS', ['FULL', 'NORMAL', 'EXTRA'] as const, 'FULL'),
    logLevel: read.oneOf('REWIND_LOG_LEVEL', ['error', 'warn', 'log', 'debug'] as const, 'log'),
    readyStallSeconds: read.integer('REWIND_READY_STALL_SECONDS', 60, 1, 86_400),
    relayTopic: env.KAFKA_BROKERS ? env.KAFKA_TOPIC_EVENTS || 'rewind.events' : null,
    runProjections: read.oneOf('REWIND_RUN_PROJECTIONS', ['true', 'false'] as const, 'true') === 'true',
    rateLimitPerSecond: read.integer('REWIND_RATE_LIMIT_PER_SECOND', 1000, 0, 1_000_000),
    rateLimitBurst: read.integer('REWIND_RATE_LIMIT_BURST', 2000, 1, 10_000_000),
    rollbackLeaseMs: read.integer('REWIND_ROLLBACK_LEASE_MS', 6_000, 500, 600_000),
    auditSealIntervalMs: read.integer('REWIND_AUDIT_SEAL_INTERVAL_MS', 1000, 0, 3_600_000),
    masterKey: env.REWIND_MASTER_KEY || undefined,
    masterKeyFile: resolve(env.REWIND_MASTER_KEY_FILE || join(env.REWIND_DATA_DIR || './data', 'master.key')),
    workspace: loadWorkspaceSettings(env, read),
    egress: loadEgressSettings(read, (message) => new ConfigError(message)),
    jsonCostLimits: loadJsonCostLimits(read),
    authFailures: {
      burst: read.integer('REWIND_AUTH_FAILURES_BURST', 100, 1, 1_000_000),
      perSecond: read.integer('REWIND_AUTH_FAILURES_PER_SECOND', 2, 0, 1_000_000),
    },
    trustProxy: loadTrustProxy(read, (message) => new ConfigError(message)),
  };
}

/** The OTLP traces endpoint from the standard variables (traces-specific first), or undefined: tracing off. */
export function otlpTracesEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  const read = new EnvReader(env, (message) => new ConfigError(message));
  const traces = read.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (traces) return traces;
  const base = read.raw('OTEL_EXPORTER_OTLP_ENDPOINT');
  return base === undefined ? undefined : `${base.replace(/\/$/, '')}/v1/traces`;
}
