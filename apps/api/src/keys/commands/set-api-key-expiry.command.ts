import { Command } from '@nestjs/cqrs';
import type { ApiKeyRecord, AuthenticatedKey } from '@rewind/tenancy';

/** Sets (or, with null, clears) the instant after which a key is refused. */
export class SetApiKeyExpiryCommand extends Command<ApiKeyRecord> {
  constructor(
    readonly keyId: string,
    readonly expiresAt: string | null,
    /** Who asks: a tenant's admin only for its own tenant's keys. */
    readonly by: AuthenticatedKey,
  ) {
    super();
  }
}
