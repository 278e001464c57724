import { Command } from '@nestjs/cqrs';
import type { ApiKeyRecord, ApiKeyScope, AuthenticatedKey } from '@rewind/tenancy';

/** Creates an API key; the answer carries the secret, shown this once. */
export class CreateApiKeyCommand extends Command<{ key: string; record: ApiKeyRecord }> {
  constructor(
    readonly tenantId: string,
    readonly name: string,
    readonly scopes: ApiKeyScope[],
    readonly expiresAt: string | null,
    /** Who asks: a tenant's admin only for its own tenant. */
    readonly by: AuthenticatedKey,
  ) {
    super();
  }
}
