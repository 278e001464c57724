import { Command } from '@nestjs/cqrs';

/** Declares whether a memory key's values are always encrypted. */
export class SetMemoryKeyEncryptionCommand extends Command<{ key: string; encrypted: boolean }> {
  constructor(
    readonly tenantId: string,
    readonly key: string,
    readonly encrypted: boolean,
  ) {
    super();
  }
}
