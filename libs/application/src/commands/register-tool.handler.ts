import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ToolRegistry, type ToolDefinition } from '@rewind/engine';
import { RegisterToolCommand } from './register-tool.command';

@CommandHandler(RegisterToolCommand)
export class RegisterToolHandler implements ICommandHandler<RegisterToolCommand, ToolDefinition> {
  constructor(private readonly tools: ToolRegistry) {}

  execute({ caller, name, effect, options }: RegisterToolCommand): Promise<ToolDefinition> {
    return this.tools.register(caller, name, effect, options);
  }
}
