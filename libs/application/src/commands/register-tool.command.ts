import { Command } from '@nestjs/cqrs';
import type { EffectDescriptor } from '@rewind/domain';
import type { Caller, ToolDefinition, WriteOptions } from '@rewind/engine';

/** Registers or replaces a tool's effect kind, compensation and retry policy. */
export class RegisterToolCommand extends Command<ToolDefinition> {
  constructor(
    readonly caller: Caller,
    readonly name: string,
    readonly effect: EffectDescriptor,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
