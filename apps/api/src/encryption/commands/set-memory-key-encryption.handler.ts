import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EncryptionPolicyStore } from '@rewind/tenancy';
import { PolicyCache } from '../policy-cache';
import { ENCRYPTION_POLICIES } from '../tokens';
import { SetMemoryKeyEncryptionCommand } from './set-memory-key-encryption.command';

@CommandHandler(SetMemoryKeyEncryptionCommand)
export class SetMemoryKeyEncryptionHandler implements ICommandHandler<SetMemoryKeyEncryptionCommand, { key: string; encrypted: boolean }> {
  constructor(
    @Inject(ENCRYPTION_POLICIES) private readonly store: EncryptionPolicyStore,
    private readonly cache: PolicyCache,
  ) {}

  async execute({ tenantId, key, encrypted }: SetMemoryKeyEncryptionCommand) {
    await this.store.setMemoryKey(tenantId, key, encrypted);
    this.cache.forget(tenantId);
    return { key, encrypted };
  }
}
