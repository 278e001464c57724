import type { ContextWindow, ContextWindowOptions, HeadMovePlan, JsonObject, MoveHead, SessionCommand, SessionState } from '@rewind/domain';
import type { StoredEvent } from '@rewind/event-store';
import { RecordStepsCommand, StartSessionCommand, type SessionWriteCommand } from './commands/impl/session-write-commands';
import { commandFor, SessionCommands, type SessionCommandsOptions } from './commands/session-commands';
import type { Caller, WriteOptions, WriteResult } from './commands/write-request';
import { SessionQueries } from './queries/session-queries';
import type { SessionRepository } from './session-repository';

export type SessionServiceOptions = SessionCommandsOptions;

/**
 * The plain dispatcher of library mode (embedded, the saga, the CLI, benchmarks): write
 * commands go to the same handlers the API and the worker register on Nest's CommandBus
 * (`dispatch`, or the domain-command shorthands below), reads to the queries.
 */
export class SessionService {
  readonly commands: SessionCommands;
  readonly queries: SessionQueries;

  constructor(
    readonly repository: SessionRepository,
    options: SessionServiceOptions = {},
  ) {
    this.commands = new SessionCommands(repository, options);
    this.queries = new SessionQueries(repository);
  }

  dispatch(command: SessionWriteCommand): Promise<WriteResult> {
    return this.commands.dispatch(command);
  }

  startSession(caller: Caller, input: { sessionId?: string; title?: string; metadata?: JsonObject }, options?: WriteOptions): Promise<WriteResult> {
    return this.commands.dispatch(new StartSessionCommand(caller, input, options));
  }

  /** A domain command on a session, carried out by its command's handler. */
  execute(caller: Caller, sessionId: string, command: SessionCommand, options?: WriteOptions): Promise<WriteResult> {
    return this.commands.dispatch(commandFor(caller, sessionId, command, options));
  }

  /** Several steps in one atomic write (see RecordStepsHandler). */
  executeSteps(caller: Caller, sessionId: string, commands: readonly SessionCommand[], options?: WriteOptions): Promise<WriteResult> {
    return this.commands.dispatch(new RecordStepsCommand(caller, sessionId, commands, options));
  }

  planHeadMove(caller: Caller, sessionId: string, command: MoveHead): Promise<HeadMovePlan> {
    return this.queries.planHeadMove(caller, sessionId, command);
  }

  getState(caller: Caller, sessionId: string, at?: number): Promise<SessionState> {
    return this.queries.getState(caller, sessionId, at);
  }

  timeline(caller: Caller, sessionId: string, page?: { from?: number; limit: number }) {
    return this.queries.timeline(caller, sessionId, page);
  }

  events(caller: Caller, sessionId: string, from?: number, limit?: number): Promise<StoredEvent[]> {
    return this.queries.events(caller, sessionId, from, limit);
  }

  diff(caller: Caller, sessionId: string, from: number, to: number) {
    return this.queries.diff(caller, sessionId, from, to);
  }

  context(caller: Caller, sessionId: string, options: ContextWindowOptions & { at?: number }): Promise<ContextWindow & { sessionId: string; head: number }> {
    return this.queries.context(caller, sessionId, options);
  }

  listSessions(caller: Caller, options: { after?: string; limit: number }) {
    return this.queries.listSessions(caller, options);
  }
}
