import { Command } from '@nestjs/cqrs';
import type { ApiKeyRecord } from '@rewind/tenancy';

/** A new secret for a key (same id, same actor in events); the old secret works for the grace period. */
export class RotateApiKeyCommand extends Command<{ key: string; record: ApiKeyRecord }> {
  constructor(
    readonly keyId: string,
    readonly graceSeconds: number,
  ) {
    super();
  }
}
