import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionCommands, type WriteResult } from '@rewind/engine';
import { RecordStepsCommand } from './record-steps.command';

@CommandHandler(RecordStepsCommand)
export class RecordStepsHandler implements ICommandHandler<RecordStepsCommand, WriteResult> {
  constructor(private readonly sessions: SessionCommands) {}

  execute({ caller, sessionId, steps, options }: RecordStepsCommand): Promise<WriteResult> {
    return this.sessions.executeSteps(caller, sessionId, steps, options);
  }
}
