import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ApiKeyRecord, ApiKeyStore } from '@rewind/tenancy';
import { API_KEY_STORE } from '../../infrastructure/tokens';
import { keyAuthority } from '../key-authority';
import { RevokeApiKeyCommand } from './revoke-api-key.command';

@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand, ApiKeyRecord> {
  constructor(@Inject(API_KEY_STORE) private readonly keys: ApiKeyStore) {}

  async execute({ keyId, by }: RevokeApiKeyCommand) {
    keyAuthority.change(by, keyId, await this.keys.get(keyId));
    return this.keys.revoke(keyId);
  }
}
