import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionCommands, type WriteResult } from '@rewind/engine';
import { RetryCompensationCommand } from './retry-compensation.command';

@CommandHandler(RetryCompensationCommand)
export class RetryCompensationHandler implements ICommandHandler<RetryCompensationCommand, WriteResult> {
  constructor(private readonly sessions: SessionCommands) {}

  execute({ caller, sessionId, rollbackId, toolCallId, options }: RetryCompensationCommand): Promise<WriteResult> {
    return this.sessions.execute(caller, sessionId, { type: 'RetryCompensation', rollbackId, toolCallId }, options);
  }
}
