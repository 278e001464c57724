import { Module } from '@nestjs/common';
import { CreateApiKeyHandler } from './commands/create-api-key.handler';
import { RevokeApiKeyHandler } from './commands/revoke-api-key.handler';
import { RotateApiKeyHandler } from './commands/rotate-api-key.handler';
import { SetApiKeyExpiryHandler } from './commands/set-api-key-expiry.handler';
import { KeysController } from './keys.controller';
import { ListApiKeysHandler } from './queries/list-api-keys.handler';

/** The admin routes for API keys (/v1/keys). Needs the global InfrastructureModule (API_KEY_STORE). */
@Module({
  controllers: [KeysController],
  providers: [CreateApiKeyHandler, RevokeApiKeyHandler, RotateApiKeyHandler, SetApiKeyExpiryHandler, ListApiKeysHandler],
})
export class KeysModule {}
