import { Command } from '@nestjs/cqrs';

/** Declares which paths of a tool's input and output are always encrypted (both empty: none). */
export class SetToolEncryptionCommand extends Command<{ tool: string; input: string[]; output: string[] }> {
  constructor(
    readonly tenantId: string,
    readonly tool: string,
    readonly input: string[],
    readonly output: string[],
  ) {
    super();
  }
}
