import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionCommands, type WriteResult } from '@rewind/engine';
import { StartSessionCommand } from './start-session.command';

@CommandHandler(StartSessionCommand)
export class StartSessionHandler implements ICommandHandler<StartSessionCommand, WriteResult> {
  constructor(private readonly sessions: SessionCommands) {}

  execute({ caller, input, options }: StartSessionCommand): Promise<WriteResult> {
    return this.sessions.startSession(caller, input, options);
  }
}
