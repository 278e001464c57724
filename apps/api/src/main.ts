// First: the Node.js version (an older one crashes silently on the native addons).
import './require-node-24';
// Then tracing: it patches http before Fastify loads it.
import { tracing } from './tracing-setup';
import 'reflect-metadata';
import cluster from 'node:cluster';
import { ConfigError, loadConfig, memoryConfigFromEnv } from '@rewind/config';
import { API_PROCESS_INDEX, assertApiProcessesAllowed, runApiProcesses } from './api-processes';
import { createApp, logger } from './create-app';

async function main(): Promise<void> {
  const config = loadConfig();
  if (cluster.isPrimary && config.apiProcesses > 1) {
    assertApiProcessesAllowed(config, memoryConfigFromEnv(process.env, config.dataDir, config));
    runApiProcesses(config.apiProcesses, logger);
    return;
  }
  if (tracing) process.once('beforeExit', () => void tracing!.shutdown());
  const { app, generatedAdminKey } = await createApp(config);
  await app.listen(config.port, config.host);
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  const which = cluster.isWorker ? `, API process ${process.env[API_PROCESS_INDEX]} of ${config.apiProcesses}, pid ${process.pid}` : '';
  logger.log(`Rewind is listening on ${url} (data in ${config.dataDir}; API docs at ${url}/docs${which})`);
  if (generatedAdminKey) {
    // Shown once: only its hash is stored.
    process.stdout.write(
      `\n  Admin API key (tenant "default"), shown only this once — store it now:\n\n    ${generatedAdminKey}\n\n` +
        `  Use it as: curl -H "Authorization: Bearer ${generatedAdminKey}" ${url}/v1/sessions\n` +
        `  Lost it? Create another with: npm run cli -- keys create --tenant default --admin\n\n`,
    );
  }
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    ['PostgresUnavailableError', 'EventStoreDbUnavailableError', 'MissingOptionalPackageError'].includes((error as Error)?.name)
  ) {
    process.stderr.write(`Rewind cannot start: ${(error as Error).message}\n`);
  } else {
    const e = error as NodeJS.ErrnoException;
    if (e?.code === 'EADDRINUSE') process.stderr.write(`Rewind cannot start: port is already in use (${e.message}). Set PORT to a free port.\n`);
    else process.stderr.write(`Rewind cannot start: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  }
  process.exit(1);
});
