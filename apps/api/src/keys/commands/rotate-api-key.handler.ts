import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ApiKeyRecord, ApiKeyStore } from '@rewind/tenancy';
import { API_KEY_STORE } from '../../infrastructure/tokens';
import { keyAuthority } from '../key-authority';
import { RotateApiKeyCommand } from './rotate-api-key.command';

@CommandHandler(RotateApiKeyCommand)
export class RotateApiKeyHandler implements ICommandHandler<RotateApiKeyCommand, { key: string; record: ApiKeyRecord }> {
  constructor(@Inject(API_KEY_STORE) private readonly keys: ApiKeyStore) {}

  async execute({ keyId, graceSeconds, by }: RotateApiKeyCommand) {
    keyAuthority.change(by, keyId, await this.keys.get(keyId));
    return this.keys.rotate(keyId, graceSeconds);
  }
}
