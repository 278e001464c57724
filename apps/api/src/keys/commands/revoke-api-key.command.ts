import { Command } from '@nestjs/cqrs';
import type { ApiKeyRecord, AuthenticatedKey } from '@rewind/tenancy';

/** Refuses a key from now on, in every process within a second. */
export class RevokeApiKeyCommand extends Command<ApiKeyRecord> {
  constructor(
    readonly keyId: string,
    /** Who asks: a tenant's admin only for its own tenant's keys. */
    readonly by: AuthenticatedKey,
  ) {
    super();
  }
}
