import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { HeadMovePlan, JsonObject, MoveHead, SessionCommand } from '@rewind/domain';
import {
  commandFor,
  RecordStepsCommand,
  StartSessionCommand,
  type Caller,
  type SessionWriteCommand,
  type WriteOptions,
  type WriteResult,
} from '@rewind/engine';
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
    return this.commandBus.execute<StartSessionCommand, WriteResult>(new StartSessionCommand(caller, input, options));
  }

  /** The command's own class on the bus: saga records are refused by their handlers (callers outside the `saga` scope). */
  execute(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions): Promise<WriteResult> {
    return this.commandBus.execute<SessionWriteCommand, WriteResult>(commandFor(caller, sessionId, command, options));
  }

  executeSteps(caller: Caller, sessionId: string, steps: readonly SessionCommand[], options: WriteOptions): Promise<WriteResult> {
    return this.commandBus.execute<RecordStepsCommand, WriteResult>(new RecordStepsCommand(caller, sessionId, steps, options));
  }

  planHeadMove(caller: Caller, sessionId: string, move: MoveHead): Promise<HeadMovePlan> {
    return this.queryBus.execute(new PlanHeadMoveQuery(caller, sessionId, move));
  }
}
