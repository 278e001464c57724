import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionService, type Caller } from '@rewind/engine';
import type { MemoryPolicy } from '@rewind/memory';
import type { MemoryRuntime } from '@rewind/memory/runtime';
import { MEMORY_RUNTIME, memoryUnavailable, requireMemory } from './memory-runtime.provider';

/** Sets the memory policy of a session, or of the caller's whole tenant when sessionId is undefined. */
export class SetMemoryPolicyCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string | undefined,
    readonly policy: MemoryPolicy,
  ) {}
}

@CommandHandler(SetMemoryPolicyCommand)
export class SetMemoryPolicyHandler implements ICommandHandler<SetMemoryPolicyCommand> {
  constructor(
    @Inject(MEMORY_RUNTIME) private readonly memory: MemoryRuntime | null,
    private readonly sessions: SessionService,
  ) {}

  async execute({ caller, sessionId, policy }: SetMemoryPolicyCommand) {
    const memory = requireMemory(this.memory);
    // Another tenant's (or no) session is a 404 before anything changes.
    if (sessionId !== undefined) await this.sessions.getState(caller, sessionId);
    const { removedItems } = await memory.setPolicy(caller.tenantId, sessionId, policy).catch(memoryUnavailable);
    return { ...(sessionId !== undefined ? { sessionId } : {}), policy, removedItems };
  }
}
