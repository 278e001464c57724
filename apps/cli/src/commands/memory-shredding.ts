import { memoryConfigFromEnv, MemoryConfigError, shredMemoryIndex } from '@rewind/memory/runtime';
import { CliError, type CommandContext } from '../command';

/** How long a shred waits for the memory index while a running API's indexer holds it (each try itself waits SQLite's busy timeout). */
export const MEMORY_INDEX_WAIT_MS = 60_000;

/** SQLITE_BUSY and its variants ("database is locked"): another process holds the file's write lock, or wrote since this one began reading. */
const isBusy = (error: unknown) => typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');

/**
 * Memory's part of a shred done by the CLI: the session's (or tenant's) items leave the memory
 * index now (even with REWIND_MEMORY=off: an index written earlier still holds their text).
 * The API's or worker's indexer removes them again when it reads the DataShredded records.
 * It runs after the data keys were destroyed and recorded: while a running API's indexer holds
 * the index (a batch of embeddings can hold its write lock past SQLite's busy timeout) it waits,
 * up to `waitMs`, rather than report "database is locked" for a shred that was done. Null: the
 * index stayed busy all that time (the indexer removes the items when it reads the records).
 */
export async function shredFromMemory(
  context: CommandContext,
  scope: { tenantId: string; sessionId?: string },
  waitMs = MEMORY_INDEX_WAIT_MS,
): Promise<number | null> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (let pause = 100; ; pause = Math.min(pause * 2, 2_000)) {
    try {
      return await shredMemoryIndex(memoryConfigFromEnv(context.io.env, context.config.dataDir, context.config), scope);
    } catch (error) {
      if (error instanceof MemoryConfigError) throw new CliError(error.message);
      if (!isBusy(error)) throw error;
      if (Date.now() + pause > deadline) return null;
      if (!told) context.io.stderr.write("rewind: the memory index is busy (a running API's memory indexer is writing to it): waiting for it...\n");
      told = true;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** The words for memory's part of a shred, given shredFromMemory's answer. */
export function memoryShredWords(removed: number | null, whose: string, waitMs = MEMORY_INDEX_WAIT_MS): string {
  return removed === null
    ? `left ${whose} memory items to the API's memory indexer (the memory index stayed busy for ${Math.round(waitMs / 1000)} s; the indexer removes them when it reads the shredding records, or run the command again to remove them now)`
    : `removed ${removed} memory item(s) of ${whose} from the memory index`;
}
