import { memoryConfigFromEnv, MemoryConfigError, shredMemoryIndex } from '@rewind/memory/runtime';
import { CliError, type CommandContext } from '../command';

/**
 * Memory's part of a shred done by the CLI: the session's (or tenant's) items leave the memory
 * index now (even with REWIND_MEMORY=off: an index written earlier still holds their text).
 * The API's or worker's indexer removes them again when it reads the DataShredded records.
 */
export async function shredFromMemory(context: CommandContext, scope: { tenantId: string; sessionId?: string }): Promise<number> {
  try {
    return await shredMemoryIndex(memoryConfigFromEnv(context.io.env, context.config.dataDir, context.config), scope);
  } catch (error) {
    if (error instanceof MemoryConfigError) throw new CliError(error.message);
    throw error;
  }
}
