import cluster, { type Worker } from 'node:cluster';
import { ConfigError, type Logger, type RewindConfig } from '@rewind/config';

/** The environment variable that tells a forked API process its place (1..n), for its log lines. */
export const API_PROCESS_INDEX = 'REWIND_API_PROCESS_INDEX';

/**
 * Why this configuration cannot run several API processes, or null when it can. Several
 * processes are safe only where everything they share is coordinated by PostgreSQL (expected
 * versions, idempotency keys, leases and advisory locks, read-your-writes): the embedded SQLite
 * file and a memory index in a file have one writer per host, so they are refused.
 */
export function apiProcessesRefusal(config: Pick<RewindConfig, 'apiProcesses' | 'store'>, memory: { enabled: boolean; index: string }): string | null {
  if (config.apiProcesses === 1) return null;
  const asked = `REWIND_API_PROCESSES=${config.apiProcesses}`;
  if (config.store !== 'postgres') {
    return `${asked} needs REWIND_STORE=postgres: the ${config.store === 'sqlite' ? 'embedded SQLite file' : 'embedded file beside EventStoreDB'} takes one API process (set REWIND_API_PROCESSES=1, or use PostgreSQL).`;
  }
  if (memory.enabled && memory.index === 'sqlite') {
    return `${asked} needs memory in PostgreSQL or Qdrant (REWIND_MEMORY_INDEX=postgres, the default with REWIND_STORE=postgres) or REWIND_MEMORY=off: a memory index in a SQLite file takes one API process.`;
  }
  return null;
}

/** Throws the refusal as a ConfigError (main prints it as "Rewind cannot start: ..."). */
export function assertApiProcessesAllowed(config: Pick<RewindConfig, 'apiProcesses' | 'store'>, memory: { enabled: boolean; index: string }): void {
  const refusal = apiProcessesRefusal(config, memory);
  if (refusal) throw new ConfigError(refusal);
}

/**
 * This process is the primary of REWIND_API_PROCESSES > 1: it serves nothing itself; it forks
 * the API processes, which share the port (node:cluster accepts the connections here and hands
 * them out in turn). The first one starts alone — it runs the migrations and creates the admin
 * key and master key a fresh database needs — and the others once it listens. A process that
 * dies after it listened is replaced; one that cannot start stops them all (the same error would
 * stop the next). SIGTERM or SIGINT is passed on, and the primary exits when they all have.
 */
export function runApiProcesses(count: number, logger: Logger): void {
  const workers = new Set<Worker>();
  const listened = new WeakSet<Worker>();
  let stopping = false;
  let exitCode = 0;
  let nextIndex = 1;

  const fork = (): Worker => {
    const worker = cluster.fork({ [API_PROCESS_INDEX]: String(nextIndex++) });
    workers.add(worker);
    return worker;
  };
  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const worker of workers) worker.process.kill('SIGTERM');
    if (workers.size === 0) process.exit(exitCode);
  };

  cluster.on('listening', (worker) => {
    if (listened.has(worker)) return;
    listened.add(worker);
    // The first is up (migrations done, keys created): start the others together.
    if (nextIndex === 2) for (let i = 1; i < count && !stopping; i++) fork();
  });
  cluster.on('exit', (worker, code, signal) => {
    workers.delete(worker);
    if (stopping) {
      if (workers.size === 0) process.exit(exitCode);
      return;
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!listened.has(worker)) {
      logger.error(`An API process (pid ${worker.process.pid}) exited with ${how} before it listened: stopping the others.`);
      stopAll(code || 1);
      return;
    }
    logger.warn(`API process pid ${worker.process.pid} exited with ${how}: starting another.`);
    fork();
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stopAll(0));

  logger.log(`Starting ${count} API processes sharing one port (REWIND_API_PROCESSES=${count}).`);
  fork();
}
