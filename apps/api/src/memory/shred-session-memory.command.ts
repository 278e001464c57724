import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { RewindConfig } from '@rewind/config';
import { memoryConfigFromEnv, shredMemoryIndex, type MemoryRuntime } from '@rewind/memory/runtime';
import { ApiError } from '../common/api-error';
import { REWIND_CONFIG } from '../infrastructure/tokens';
import { MEMORY_RUNTIME } from './memory-runtime.provider';

/** Memory's part of a crypto-shredding: the session's items leave the index at once (the indexer does it again when it reads DataShredded). */
export class ShredSessionMemoryCommand {
  constructor(
    readonly tenantId: string,
    readonly sessionId: string,
  ) {}
}

@CommandHandler(ShredSessionMemoryCommand)
export class ShredSessionMemoryHandler implements ICommandHandler<ShredSessionMemoryCommand, { removedItems: number }> {
  private readonly logger = new Logger('Memory');

  constructor(
    @Inject(MEMORY_RUNTIME) private readonly memory: MemoryRuntime | null,
    @Inject(REWIND_CONFIG) private readonly config: RewindConfig,
  ) {}

  async execute({ tenantId, sessionId }: ShredSessionMemoryCommand) {
    let removedItems: number;
    try {
      // With memory off, an index written while it was on may still hold the session's text.
      removedItems = this.memory
        ? await this.memory.shred(tenantId, sessionId)
        : await shredMemoryIndex(memoryConfigFromEnv(process.env, this.config.dataDir, this.config), { tenantId, sessionId });
    } catch (error) {
      throw new ApiError(
        503,
        'memory_unavailable',
        `The data keys are destroyed and the shred is recorded, but the memory index could not be reached (${(error as Error).message}): ` +
          "the memory indexer removes the session's items when it reads the record. Repeat the request to remove them now.",
      );
    }
    if (removedItems > 0) this.logger.log(`Removed ${removedItems} memory item(s) of shredded session "${sessionId}" (tenant "${tenantId}") from the index.`);
    return { removedItems };
  }
}
