import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionCommands, type WriteResult } from '@rewind/engine';
import { MoveHeadCommand } from './move-head.command';

@CommandHandler(MoveHeadCommand)
export class MoveHeadHandler implements ICommandHandler<MoveHeadCommand, WriteResult> {
  constructor(private readonly sessions: SessionCommands) {}

  execute({ caller, sessionId, move, options }: MoveHeadCommand): Promise<WriteResult> {
    return this.sessions.execute(caller, sessionId, move, options);
  }
}
