import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Caller } from '@rewind/engine';
import type { RecallResult } from '@rewind/memory';
import type { MemoryRuntime } from '@rewind/memory/runtime';
import { MEMORY_RUNTIME, memoryUnavailable, requireMemory } from './memory-runtime.provider';

/** Branch-aware recall over a session's (or its tenant's) long-term memory. */
export class RecallQuery {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly request: { query: string; k?: number; scope?: 'session' | 'tenant'; at?: number; rewrite?: boolean },
  ) {}
}

@QueryHandler(RecallQuery)
export class RecallHandler implements IQueryHandler<RecallQuery, RecallResult> {
  constructor(@Inject(MEMORY_RUNTIME) private readonly memory: MemoryRuntime | null) {}

  async execute({ caller, sessionId, request }: RecallQuery): Promise<RecallResult> {
    const memory = requireMemory(this.memory);
    await memory.open().catch(memoryUnavailable);
    return memory.recall.recall({ tenantId: caller.tenantId, sessionId, ...request }).catch(memoryUnavailable);
  }
}
