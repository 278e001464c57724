import type { HeadMovePlan, JsonObject, MoveHead, SessionCommand } from '@rewind/domain';
import type { Caller, WriteOptions, WriteResult } from '@rewind/engine';

/**
 * Where the consumer carries out a decoded command. The worker gives it the application's
 * CommandBus and QueryBus (@rewind/application's CommandBusDispatch), so a command reaches
 * the same handlers, and behaves the same, whether it came over HTTP or Kafka.
 */
export interface SessionCommandDispatch {
  startSession(caller: Caller, input: { sessionId?: string; title?: string; metadata?: JsonObject }, options: WriteOptions): Promise<WriteResult>;
  execute(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions): Promise<WriteResult>;
  executeSteps(caller: Caller, sessionId: string, steps: readonly SessionCommand[], options: WriteOptions): Promise<WriteResult>;
  /** A head move's plan (dry run): nothing is written. */
  planHeadMove(caller: Caller, sessionId: string, move: MoveHead): Promise<HeadMovePlan>;
}
