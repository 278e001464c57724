import { Inject, type Type } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  CompleteRollbackCommand,
  CreateCheckpointCommand,
  MoveHeadCommand,
  NameBranchCommand,
  RecordCompensationOutcomeCommand,
  RecordShreddingCommand,
  RecordStepCommand,
  RecordStepsCommand,
  ResolveCompensationCommand,
  RetryCompensationCommand,
  SaveComponentStateCommand,
  SessionCommands,
  StartSessionCommand,
  type SessionCommandHandler,
  type SessionWriteCommand,
  type WriteResult,
} from '@rewind/engine';

/** The session write commands; each has its (Nest-free) handler in @rewind/engine. */
export const SESSION_COMMANDS = [
  StartSessionCommand,
  RecordStepCommand,
  RecordStepsCommand,
  CreateCheckpointCommand,
  MoveHeadCommand,
  NameBranchCommand,
  RetryCompensationCommand,
  ResolveCompensationCommand,
  SaveComponentStateCommand,
  RecordCompensationOutcomeCommand,
  CompleteRollbackCommand,
  RecordShreddingCommand,
] as const;

/**
 * Registers the engine's handler of one command class on Nest's CommandBus: the adapter
 * adds nothing, so a command sent on the bus runs exactly the code library mode runs.
 */
function onCommandBus(command: (typeof SESSION_COMMANDS)[number]): Type<ICommandHandler> {
  @CommandHandler(command)
  class SessionCommandOnBus {
    private readonly handler: SessionCommandHandler;

    constructor(@Inject(SessionCommands) commands: SessionCommands) {
      this.handler = commands.handlers.get(command)!;
    }

    execute(message: SessionWriteCommand): Promise<WriteResult> {
      return this.handler.execute(message);
    }
  }
  Object.defineProperty(SessionCommandOnBus, 'name', { value: `${command.name}OnBus` });
  return SessionCommandOnBus;
}

export const SESSION_COMMAND_HANDLERS = SESSION_COMMANDS.map(onCommandBus);
