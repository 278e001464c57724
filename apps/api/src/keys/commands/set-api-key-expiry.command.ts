import { Command } from '@nestjs/cqrs';
import type { ApiKeyRecord } from '@rewind/tenancy';

/** Sets (or, with null, clears) the instant after which a key is refused. */
export class SetApiKeyExpiryCommand extends Command<ApiKeyRecord> {
  constructor(
    readonly keyId: string,
    readonly expiresAt: string | null,
  ) {
    super();
  }
}
