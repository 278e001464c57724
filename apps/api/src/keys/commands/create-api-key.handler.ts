import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ApiKeyRecord, ApiKeyStore } from '@rewind/tenancy';
import { API_KEY_STORE } from '../../infrastructure/tokens';
import { keyAuthority } from '../key-authority';
import { CreateApiKeyCommand } from './create-api-key.command';

@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand, { key: string; record: ApiKeyRecord }> {
  constructor(@Inject(API_KEY_STORE) private readonly keys: ApiKeyStore) {}

  execute({ tenantId, name, scopes, expiresAt, by }: CreateApiKeyCommand) {
    keyAuthority.create(by, tenantId, scopes);
    return this.keys.create({ tenantId, name, scopes, expiresAt });
  }
}
