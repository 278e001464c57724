import { Command } from '@nestjs/cqrs';
import type { ApiKeyRecord, AuthenticatedKey } from '@rewind/tenancy';

/** A new secret for a key (same id, same actor in events); the old secret works for the grace period. */
export class RotateApiKeyCommand extends Command<{ key: string; record: ApiKeyRecord }> {
  constructor(
    readonly keyId: string,
    readonly graceSeconds: number,
    /** Who asks: a tenant's admin only for its own tenant's keys. */
    readonly by: AuthenticatedKey,
  ) {
    super();
  }
}
