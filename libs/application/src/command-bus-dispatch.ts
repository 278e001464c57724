import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus, type Command } from '@nestjs/cqrs';
import { invalid, isStepCommand, type HeadMovePlan, type JsonObject, type MoveHead, type SessionCommand } from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';
import { CreateCheckpointCommand } from './commands/create-checkpoint.command';
import { MoveHeadCommand } from './commands/move-head.command';
import { RecordStepCommand } from './commands/record-step.command';
import { RecordStepsCommand } from './commands/record-steps.command';
import { ResolveCompensationCommand } from './commands/resolve-compensation.command';
import { RetryCompensationCommand } from './commands/retry-compensation.command';
import { StartSessionCommand } from './commands/start-session.command';
import { PlanHeadMoveQuery } from './queries/plan-head-move.query';

/**
 * The session commands of a transport that carries domain commands (the Kafka command
 * consumer), sent through the CommandBus and QueryBus: they reach the same handlers as HTTP.
 */
@Injectable()
export class CommandBusDispatch {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  startSession(caller: Caller, input: { sessionId?: string; title?: string; metadata?: JsonObject }, options: WriteOptions): Promise<WriteResult> {
    return this.commandBus.execute(new StartSessionCommand(caller, input, options));
  }

  execute(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions): Promise<WriteResult> {
    let message: Command<WriteResult>;
    try {
      message = applicationCommandFor(caller, sessionId, command, options);
    } catch (error) {
      return Promise.reject(error as Error); // a refusal, like every other, arrives as a rejected promise
    }
    return this.commandBus.execute(message);
  }

  executeSteps(caller: Caller, sessionId: string, steps: readonly SessionCommand[], options: WriteOptions): Promise<WriteResult> {
    return this.commandBus.execute(new RecordStepsCommand(caller, sessionId, steps, options));
  }

  planHeadMove(caller: Caller, sessionId: string, move: MoveHead): Promise<HeadMovePlan> {
    return this.queryBus.execute(new PlanHeadMoveQuery(caller, sessionId, move));
  }
}

/** The application command that carries a domain command on one session. */
export function applicationCommandFor(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions): Command<WriteResult> {
  switch (command.type) {
    case 'MoveHead':
      return new MoveHeadCommand(caller, sessionId, command, options);
    case 'CreateCheckpoint':
      return new CreateCheckpointCommand(caller, sessionId, command.label, options);
    case 'RetryCompensation':
      return new RetryCompensationCommand(caller, sessionId, command.rollbackId, command.toolCallId, options);
    case 'ResolveCompensation':
      return new ResolveCompensationCommand(caller, sessionId, command.rollbackId, command.toolCallId, command.note, options);
  }
  if (isStepCommand(command)) return new RecordStepCommand(caller, sessionId, command, options);
  // StartSession has its own command; compensation outcomes and completions are the saga's own record.
  throw invalid(
    'validation_failed',
    `A ${command.type} cannot be sent as a command on a session: ${command.type === 'StartSession' ? 'start the session with StartSession' : 'only the rollback saga records it'}.`,
    [{ field: 'type', message: `${command.type} is not accepted here` }],
  );
}
