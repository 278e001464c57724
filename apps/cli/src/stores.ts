import { DomainError } from '@rewind/domain';
import type { RewindConfig } from '@rewind/config';
import type { EventStore } from '@rewind/event-store';
import { MissingDatabaseError, openBackend, type Backend } from '@rewind/runtime';
import { CliError, type CliIo, type CommandContext } from './command';

/** Failures to open that are the setup's, said in one sentence. */
const UNAVAILABLE = new Set(['PostgresUnavailableError', 'EventStoreDbUnavailableError', MissingDatabaseError.name, 'MissingOptionalPackageError']);

/**
 * The CLI's backend: the API's stores (small pools; REWIND_PG_SCHEMA / REWIND_READ_SCHEMA pick
 * other PostgreSQL schemas, for tests or several deployments in one database), opened once at a
 * command's first `open()` and closed after the command.
 */
export function cliBackend(io: CliIo, config: RewindConfig): { open(options?: { create?: boolean }): Promise<Backend>; close(): Promise<void> } {
  let opened: Promise<Backend> | undefined;
  return {
    open(options = {}) {
      opened ??= openBackend(config, {
        poolSize: 4,
        readModelPoolSize: 8,
        mustExist: options.create !== true,
        ...(io.env.REWIND_PG_SCHEMA ? { schema: io.env.REWIND_PG_SCHEMA } : {}),
        ...(io.env.REWIND_READ_SCHEMA ? { readModelSchema: io.env.REWIND_READ_SCHEMA } : {}),
      }).catch((error: unknown) => {
        throw UNAVAILABLE.has((error as Error)?.name) ? new CliError((error as Error).message) : error;
      });
      return opened;
    },
    async close() {
      const backend = await opened?.catch(() => undefined);
      await backend?.close();
    },
  };
}

/** Runs `use` on the configured backend; a domain refusal ("no such session") is the message to show. */
export async function withBackend<T>(context: CommandContext, use: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await context.backend();
  try {
    return await use(backend);
  } catch (error) {
    if (error instanceof DomainError) throw new CliError(error.message);
    throw error;
  }
}

/** Runs `use` on the configured event store (see withBackend). */
export function withEventStore<T>(context: CommandContext, use: (store: EventStore) => Promise<T>): Promise<T> {
  return withBackend(context, (backend) => use(backend.events));
}
