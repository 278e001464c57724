import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { invalid, isStepCommand } from '@rewind/domain';
import { SessionCommands, type WriteResult } from '@rewind/engine';
import { RecordStepCommand } from './record-step.command';

@CommandHandler(RecordStepCommand)
export class RecordStepHandler implements ICommandHandler<RecordStepCommand, WriteResult> {
  constructor(private readonly sessions: SessionCommands) {}

  execute({ caller, sessionId, step, options }: RecordStepCommand): Promise<WriteResult> {
    if (!isStepCommand(step)) {
      return Promise.reject(
        invalid('validation_failed', `A ${step.type} is not a step: send it as its own command.`, [{ field: 'type', message: 'not a step' }]),
      );
    }
    return this.sessions.execute(caller, sessionId, step, options);
  }
}
