import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { JsonObject, SessionCommand } from '@rewind/domain';
import { SessionService, type Caller, type WriteOptions, type WriteResult } from '@rewind/engine';

/** Starts a session (HTTP and, later, Kafka both send this). */
export class StartSessionCommand {
  constructor(
    readonly caller: Caller,
    readonly input: { sessionId?: string; title?: string; metadata?: JsonObject },
    readonly options: WriteOptions,
  ) {}
}

/** Any other command on one session. */
export class ExecuteSessionCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly command: SessionCommand,
    readonly options: WriteOptions,
  ) {}
}

/** Several steps on one session, written atomically. */
export class ExecuteSessionStepsCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly commands: SessionCommand[],
    readonly options: WriteOptions,
  ) {}
}

@CommandHandler(StartSessionCommand)
export class StartSessionHandler implements ICommandHandler<StartSessionCommand, WriteResult> {
  constructor(private readonly sessions: SessionService) {}
  execute({ caller, input, options }: StartSessionCommand): Promise<WriteResult> {
    return this.sessions.startSession(caller, input, options);
  }
}

@CommandHandler(ExecuteSessionCommand)
export class ExecuteSessionHandler implements ICommandHandler<ExecuteSessionCommand, WriteResult> {
  constructor(private readonly sessions: SessionService) {}
  execute({ caller, sessionId, command, options }: ExecuteSessionCommand): Promise<WriteResult> {
    return this.sessions.execute(caller, sessionId, command, options);
  }
}

@CommandHandler(ExecuteSessionStepsCommand)
export class ExecuteSessionStepsHandler implements ICommandHandler<ExecuteSessionStepsCommand, WriteResult> {
  constructor(private readonly sessions: SessionService) {}
  execute({ caller, sessionId, commands, options }: ExecuteSessionStepsCommand): Promise<WriteResult> {
    return this.sessions.executeSteps(caller, sessionId, commands, options);
  }
}
