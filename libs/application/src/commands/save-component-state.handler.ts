import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { saveComponentState } from '@rewind/domain';
import { SessionCommands, type WriteResult } from '@rewind/engine';
import { SaveComponentStateCommand } from './save-component-state.command';

@CommandHandler(SaveComponentStateCommand)
export class SaveComponentStateHandler implements ICommandHandler<SaveComponentStateCommand, WriteResult> {
  constructor(private readonly sessions: SessionCommands) {}

  async execute({ caller, sessionId, name, state, options }: SaveComponentStateCommand): Promise<WriteResult> {
    return this.sessions.execute(caller, sessionId, saveComponentState(name, state), options);
  }
}
