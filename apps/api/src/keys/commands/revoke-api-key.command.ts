import { Command } from '@nestjs/cqrs';
import type { ApiKeyRecord } from '@rewind/tenancy';

/** Refuses a key from now on, in every process within a second. */
export class RevokeApiKeyCommand extends Command<ApiKeyRecord> {
  constructor(readonly keyId: string) {
    super();
  }
}
