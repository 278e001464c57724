// First: tracing patches kafkajs before the worker loads it.
import { tracing } from './tracing-setup';
import 'reflect-metadata';
import { KafkaConfigError } from '@rewind/messaging';
import { errorMessage } from '@rewind/messaging';
import { contextLogger, createLogger } from '@rewind/observability';
import { openBackend } from '@rewind/runtime';
import { startWorker } from './worker';
import { loadWorkerConfig, WorkerConfigError } from './worker-config';

/**
 * The Rewind worker: the Kafka command consumer and the event relay (projections and
 * sagas join later). Configured from the environment; stops gracefully on SIGTERM/SIGINT.
 */
async function main(): Promise<void> {
  const config = loadWorkerConfig();
  // One JSON line per entry, the Kafka client's lines included (through the 'Kafka' context).
  const root = createLogger(config.logLevel);
  const log = contextLogger(root, 'Worker');
  // Every store, opened once here (an unreachable database stops the start with one sentence) and closed after the worker.
  const backend = await openBackend(config);
  const worker = await startWorker(config, (context) => contextLogger(root, context), backend).catch(async (error: unknown) => {
    await backend.close().catch(() => undefined);
    throw error;
  });
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn(`Received ${signal} again: exiting now without waiting for in-flight work (it will be redelivered).`);
      process.exit(1);
    }
    stopping = true;
    log.log(`Received ${signal}: finishing in-flight work, committing offsets, then exiting.`);
    const timer = setTimeout(() => {
      log.error(`Shutdown took longer than REWIND_SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs} ms): exiting anyway; unfinished work will be redelivered.`);
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    worker
      .stop()
      .then(() => backend.close())
      .then(
        async () => {
          await tracing?.shutdown(); // sends the last spans
          log.log('Worker stopped.');
          process.exit(0);
        },
        (error: unknown) => {
          log.error(`Worker stopped with an error: ${errorMessage(error)}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  if (
    error instanceof WorkerConfigError ||
    error instanceof KafkaConfigError ||
    ['PostgresUnavailableError', 'EventStoreDbUnavailableError', 'MissingOptionalPackageError'].includes((error as Error)?.name)
  ) {
    process.stderr.write(`The Rewind worker cannot start: ${(error as Error).message}\n`);
  } else {
    process.stderr.write(`The Rewind worker cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
