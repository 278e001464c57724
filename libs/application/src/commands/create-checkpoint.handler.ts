import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionCommands, type WriteResult } from '@rewind/engine';
import { CreateCheckpointCommand } from './create-checkpoint.command';

@CommandHandler(CreateCheckpointCommand)
export class CreateCheckpointHandler implements ICommandHandler<CreateCheckpointCommand, WriteResult> {
  constructor(private readonly sessions: SessionCommands) {}

  execute({ caller, sessionId, label, options }: CreateCheckpointCommand): Promise<WriteResult> {
    return this.sessions.execute(caller, sessionId, { type: 'CreateCheckpoint', label }, options);
  }
}
