import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ApiKeyRecord, ApiKeyStore } from '@rewind/tenancy';
import { API_KEY_STORE } from '../../infrastructure/tokens';
import { keyAuthority } from '../key-authority';
import { SetApiKeyExpiryCommand } from './set-api-key-expiry.command';

@CommandHandler(SetApiKeyExpiryCommand)
export class SetApiKeyExpiryHandler implements ICommandHandler<SetApiKeyExpiryCommand, ApiKeyRecord> {
  constructor(@Inject(API_KEY_STORE) private readonly keys: ApiKeyStore) {}

  async execute({ keyId, expiresAt, by }: SetApiKeyExpiryCommand) {
    keyAuthority.change(by, keyId, await this.keys.get(keyId));
    return this.keys.setExpiry(keyId, expiresAt);
  }
}
