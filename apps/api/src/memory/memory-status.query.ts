import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { MemoryIndexerStatus } from '@rewind/memory';
import type { MemoryRuntime } from '@rewind/memory/runtime';
import { MEMORY_RUNTIME } from './memory-runtime.provider';

/** How far indexing is behind the log, and with which model and index. */
export class MemoryStatusQuery {}

export type MemoryStatus = { enabled: false } | ({ enabled: true; index: string } & MemoryIndexerStatus);

@QueryHandler(MemoryStatusQuery)
export class MemoryStatusHandler implements IQueryHandler<MemoryStatusQuery, MemoryStatus> {
  constructor(@Inject(MEMORY_RUNTIME) private readonly memory: MemoryRuntime | null) {}

  async execute(): Promise<MemoryStatus> {
    if (!this.memory) return { enabled: false };
    return { enabled: true, index: this.memory.options.config.index, ...(await this.memory.indexer.status()) };
  }
}
