import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EncryptionPolicyStore } from '@rewind/tenancy';
import { PolicyCache } from '../policy-cache';
import { ENCRYPTION_POLICIES } from '../tokens';
import { SetToolEncryptionCommand } from './set-tool-encryption.command';

@CommandHandler(SetToolEncryptionCommand)
export class SetToolEncryptionHandler implements ICommandHandler<SetToolEncryptionCommand, { tool: string; input: string[]; output: string[] }> {
  constructor(
    @Inject(ENCRYPTION_POLICIES) private readonly store: EncryptionPolicyStore,
    private readonly cache: PolicyCache,
  ) {}

  async execute({ tenantId, tool, input, output }: SetToolEncryptionCommand) {
    await this.store.setTool(tenantId, tool, { input, output });
    this.cache.forget(tenantId);
    return { tool, input, output };
  }
}
