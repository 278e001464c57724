import { resolve } from 'node:path';
import {
  EnvReader,
  loadEgressSettings,
  loadJsonCostLimits,
  loadWorkspaceSettings,
  type EgressSettings,
  readPostgresPools,
  readStoreChoice,
  type PostgresPools,
  type StoreChoice,
  type WorkspaceSettings,
} from '@rewind/config';
import { loadKafkaSettings, type KafkaSettings } from '@rewind/messaging';
import type { MessagingLogLevel } from '@rewind/messaging';

export type BusKind = 'inprocess' | 'kafka';

/** Where events live (StoreChoice: the embedded file in dataDir, PostgreSQL, or EventStoreDB beside the file), and the rest. */
export interface WorkerConfig extends StoreChoice, PostgresPools {
  bus: BusKind;
  /** Only read (and checked) when bus = kafka. */
  kafka: KafkaSettings | null;
  dataDir: string;
  snapshotEvery: number;
  sqliteSynchronous: 'FULL' | 'NORMAL' | 'EXTRA';
  logLevel: MessagingLogLevel;
  commands: { enabled: boolean; groupId: string; maxAttempts: number };
  relay: { enabled: boolean; batchSize: number; pollIntervalMs: number; leaseMs: number };
  /**
   * Resume unfinished rollbacks (at start, and those whose process died: PostgreSQL) and carry out
   * those started by Kafka commands; leaseMs (REWIND_ROLLBACK_LEASE_MS): how long a rollback's lease lasts without renewal.
   */
  saga: { enabled: boolean; leaseMs: number };
  /** Run the projection runners (read models) in this worker. */
  projections: { enabled: boolean };
  /** Longest a graceful shutdown may take before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** The worker's HTTP server: /health/live, /health/ready and /metrics (port 0: any free port). */
  http: { enabled: boolean; port: number; host: string };
  /** /health/ready fails when a subscriber is behind without moving for longer than this. */
  readyStallSeconds: number;
  /** This worker's stable id (REWIND_WORKER_ID), unique among the live workers; null: a new one at each start. */
  workerId: string | null;
  /** The workspace channel (REWIND_WORKSPACE_ROOT): file changes under the root, undone on rollback; null: off. */
  workspace: WorkspaceSettings | null;
  /** REWIND_EGRESS_*: where compensations may go. */
  egress: EgressSettings;
  /** REWIND_MAX_JSON_KEYS_PER_OBJECT and REWIND_MAX_JSON_NODES: Kafka commands refused before parsing, as HTTP bodies are. */
  jsonCostLimits: { maxKeysPerObject: number; maxNodes: number };
}

export class WorkerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerConfigError';
  }
}

/** Reads the worker's configuration from the environment (documented in docs/operations/configuration.md and docs/asyncapi.yaml). */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const read = new EnvReader(env, (message) => new WorkerConfigError(message));
  const bus = read.oneOf('REWIND_BUS', ['inprocess', 'kafka'] as const, 'inprocess');
  const groupId = env.KAFKA_COMMANDS_GROUP_ID || 'rewind-commands';
  if (!/^[A-Za-z0-9._-]{1,249}$/.test(groupId))
    throw new WorkerConfigError(`KAFKA_COMMANDS_GROUP_ID="${groupId}" is not valid: use 1-249 letters, digits, ".", "_" or "-".`);
  const workerId = env.REWIND_WORKER_ID || null;
  if (workerId !== null && !/^[A-Za-z0-9._:-]{1,128}$/.test(workerId))
    throw new WorkerConfigError(`REWIND_WORKER_ID="${workerId}" is not valid: use 1-128 letters, digits, ".", "_", ":" or "-" (e.g. the pod name).`);
  const choice = readStoreChoice(read, env, (message) => new WorkerConfigError(message));
  return {
    ...choice,
    ...readPostgresPools(read),
    bus,
    kafka: bus === 'kafka' ? loadKafkaSettings(env, { clientId: 'rewind-worker' }) : null,
    dataDir: resolve(env.REWIND_DATA_DIR || './data'),
    snapshotEvery: read.integer('REWIND_SNAPSHOT_EVERY', 100, 0, 1_000_000),
    sqliteSynchronous: read.oneOf('REWIND_SQLITE_SYNCHRONOUS', ['FULL', 'NORMAL', 'EXTRA'] as const, 'FULL'),
    logLevel: read.oneOf('REWIND_LOG_LEVEL', ['error', 'warn', 'log', 'debug'] as const, 'log'),
    commands: {
      enabled: read.onOff('REWIND_WORKER_COMMANDS', 'on'),
      groupId,
      maxAttempts: read.integer('REWIND_COMMAND_MAX_ATTEMPTS', 5, 1, 1_000),
    },
    relay: {
      enabled: read.onOff('REWIND_WORKER_RELAY', 'on'),
      batchSize: read.integer('REWIND_RELAY_BATCH_SIZE', 500, 1, 100_000),
      pollIntervalMs: read.integer('REWIND_RELAY_POLL_MS', 20, 1, 60_000),
      // 6 s: the shortest consumer session the default broker accepts, so both clocks fail over together.
      leaseMs: read.integer('REWIND_RELAY_LEASE_MS', 6_000, 500, 600_000),
    },
    saga: { enabled: read.onOff('REWIND_WORKER_SAGA', 'on'), leaseMs: read.integer('REWIND_ROLLBACK_LEASE_MS', 6_000, 500, 600_000) },
    projections: { enabled: read.onOff('REWIND_WORKER_PROJECTIONS', 'on') },
    shutdownTimeoutMs: read.integer('REWIND_SHUTDOWN_TIMEOUT_MS', 30_000, 100, 3_600_000),
    http: {
      enabled: read.onOff('REWIND_WORKER_HTTP', 'on'),
      port: read.integer('REWIND_WORKER_HTTP_PORT', 3001, 0, 65_535),
      host: env.REWIND_WORKER_HTTP_HOST || '0.0.0.0',
    },
    readyStallSeconds: read.integer('REWIND_READY_STALL_SECONDS', 60, 1, 86_400),
    workerId,
    workspace: loadWorkspaceSettings(env, read),
    egress: loadEgressSettings(read, (message) => new WorkerConfigError(message)),
    jsonCostLimits: loadJsonCostLimits(read),
  };
}
