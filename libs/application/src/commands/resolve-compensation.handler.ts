import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionCommands, type WriteResult } from '@rewind/engine';
import { ResolveCompensationCommand } from './resolve-compensation.command';

@CommandHandler(ResolveCompensationCommand)
export class ResolveCompensationHandler implements ICommandHandler<ResolveCompensationCommand, WriteResult> {
  constructor(private readonly sessions: SessionCommands) {}

  execute({ caller, sessionId, rollbackId, toolCallId, note, options }: ResolveCompensationCommand): Promise<WriteResult> {
    return this.sessions.execute(caller, sessionId, { type: 'ResolveCompensation', rollbackId, toolCallId, note }, options);
  }
}
