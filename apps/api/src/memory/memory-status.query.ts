import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { MemoryIndexerStatus } from '@rewind/memory';
import type { MemoryRuntime } from '@rewind/memory/runtime';
import { MEMORY_RUNTIME } from './memory-runtime.provider';

/** How far indexing is behind the log, and with which model and index. */
export class MemoryStatusQuery {
  /** Positions and counts are the whole deployment's: only the operator sees them. */
  constructor(readonly seesDeployment: boolean = true) {}
}

export type MemoryStatus = { enabled: false } | ({ enabled: true; index: string } & MemoryIndexerStatus);
export type TenantMemoryStatus = { enabled: true; index: string } & Pick<MemoryIndexerStatus, 'state' | 'runsIn' | 'model' | 'dimensions'> & {
    /** The models in use, without their counts (other tenants' items) or backlogs. */
    models: Omit<MemoryIndexerStatus['models'][number], 'items' | 'pendingVectors'>[];
  };

@QueryHandler(MemoryStatusQuery)
export class MemoryStatusHandler implements IQueryHandler<MemoryStatusQuery, MemoryStatus | TenantMemoryStatus> {
  constructor(@Inject(MEMORY_RUNTIME) private readonly memory: MemoryRuntime | null) {}

  async execute({ seesDeployment }: MemoryStatusQuery): Promise<MemoryStatus | TenantMemoryStatus> {
    if (!this.memory) return { enabled: false };
    const status = { enabled: true as const, index: this.memory.options.config.index, ...(await this.memory.indexer.status()) };
    if (seesDeployment) return status;
    // A tenant sees how memory runs, not the global log's positions, lag or counts (other tenants' activity).
    const { enabled, index, state, runsIn, model, dimensions } = status;
    return { enabled, index, state, runsIn, model, dimensions, models: status.models.map(({ items: _items, pendingVectors: _pending, ...model }) => model) };
  }
}
