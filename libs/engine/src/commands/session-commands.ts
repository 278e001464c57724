import type { SessionCommand } from '@rewind/domain';
import type { SessionRepository } from '../session-repository';
import type { ToolRegistry } from '../tool-registry';
import { CommandPipeline } from './command-pipeline';
import { CompleteRollbackHandler } from './handlers/complete-rollback.handler';
import { CreateCheckpointHandler } from './handlers/create-checkpoint.handler';
import { NameBranchHandler } from './handlers/name-branch.handler';
import { MoveHeadHandler } from './handlers/move-head.handler';
import { RecordCompensationOutcomeHandler } from './handlers/record-compensation-outcome.handler';
import { RecordShreddingHandler } from './handlers/record-shredding.handler';
import { RecordStepHandler } from './handlers/record-step.handler';
import { RecordStepsHandler } from './handlers/record-steps.handler';
import { ResolveCompensationHandler } from './handlers/resolve-compensation.handler';
import { RetryCompensationHandler } from './handlers/retry-compensation.handler';
import { SaveComponentStateHandler } from './handlers/save-component-state.handler';
import type { SessionWriteContext } from './handlers/session-write';
import { StartSessionHandler } from './handlers/start-session.handler';
import {
  CompleteRollbackCommand,
  CreateCheckpointCommand,
  NameBranchCommand,
  MoveHeadCommand,
  RecordCompensationOutcomeCommand,
  RecordShreddingCommand,
  RecordStepCommand,
  RecordStepsCommand,
  ResolveCompensationCommand,
  RetryCompensationCommand,
  SaveComponentStateCommand,
  StartSessionCommand,
  type SessionWriteCommand,
} from './impl/session-write-commands';
import { SessionStream, type SessionCommitListener } from './session-stream';
import type { Caller, WriteOptions, WriteResult } from './write-request';

export interface SessionCommandsOptions {
  newId?: () => string;
  now?: () => Date;
  /** Registered tools: a call that does not declare its effect gets the tool's. */
  tools?: ToolRegistry;
  /** True when a rollback saga runs: head moves across effects start it instead of answering 409. */
  compensationEnabled?: boolean;
  /** Called after each commit (not for idempotent replays), e.g. to start the saga. */
  onCommitted?: SessionCommitListener;
}

type CommandClass = abstract new (...args: never[]) => SessionWriteCommand;

/** Each session write command with the class of its handler: the one list of them. */
const SESSION_COMMAND_HANDLERS = [
  [StartSessionCommand, StartSessionHandler],
  [RecordStepCommand, RecordStepHandler],
  [RecordStepsCommand, RecordStepsHandler],
  [CreateCheckpointCommand, CreateCheckpointHandler],
  [NameBranchCommand, NameBranchHandler],
  [MoveHeadCommand, MoveHeadHandler],
  [RetryCompensationCommand, RetryCompensationHandler],
  [ResolveCompensationCommand, ResolveCompensationHandler],
  [SaveComponentStateCommand, SaveComponentStateHandler],
  [RecordCompensationOutcomeCommand, RecordCompensationOutcomeHandler],
  [CompleteRollbackCommand, CompleteRollbackHandler],
  [RecordShreddingCommand, RecordShreddingHandler],
] as const satisfies readonly (readonly [CommandClass, new (context: SessionWriteContext) => unknown])[];

/** The session write commands (what @rewind/application registers on Nest's CommandBus). */
export const SESSION_COMMANDS = SESSION_COMMAND_HANDLERS.map(([command]) => command);

/** The handler of one command class; each does its own lookups, then runs the pipeline. */
export interface SessionCommandHandler<C extends SessionWriteCommand = SessionWriteCommand> {
  execute(command: C): Promise<WriteResult>;
}

/**
 * The session write side: one handler per command, over the one pipeline. `dispatch` is the
 * plain dispatcher of library mode, the saga and the CLI; in Nest the same handlers are
 * registered on the CommandBus (@rewind/application), so every door reaches the same code.
 */
export class SessionCommands {
  readonly pipeline: CommandPipeline;
  /** Command class → its handler (what @rewind/application registers in Nest). */
  readonly handlers: ReadonlyMap<CommandClass, SessionCommandHandler>;

  constructor(repository: SessionRepository, options: SessionCommandsOptions = {}) {
    this.pipeline = new CommandPipeline(repository.store, {
      ...(options.newId ? { newId: options.newId } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    const context: SessionWriteContext = {
      pipeline: this.pipeline,
      stream: new SessionStream(repository, options.onCommitted),
      repository,
      tools: options.tools,
      compensationEnabled: options.compensationEnabled ?? false,
    };
    this.handlers = new Map<CommandClass, SessionCommandHandler>(
      SESSION_COMMAND_HANDLERS.map(([command, Handler]) => [command, new Handler(context) as SessionCommandHandler]),
    );
  }

  /** Carries out one command through its handler. */
  dispatch(command: SessionWriteCommand): Promise<WriteResult> {
    const handler = this.handlers.get(command.constructor as CommandClass);
    if (!handler) return Promise.reject(new Error(`No handler for ${command.constructor.name}`));
    return handler.execute(command);
  }
}

/**
 * The write command that carries a domain command on one session: what a door that holds
 * a domain command (library calls, the property tests) sends. Saga records carry the
 * caller as given: their handlers refuse anyone outside the `saga` scope.
 */
export function commandFor(caller: Caller, sessionId: string, command: SessionCommand, options: WriteOptions = {}): SessionWriteCommand {
  switch (command.type) {
    case 'StartSession':
      return new StartSessionCommand(
        caller,
        {
          sessionId: command.sessionId,
          ...(command.title != null ? { title: command.title } : {}),
          ...(command.metadata ? { metadata: command.metadata } : {}),
        },
        options,
      );
    case 'MoveHead':
      return new MoveHeadCommand(caller, sessionId, command, options);
    case 'CreateCheckpoint':
      return new CreateCheckpointCommand(caller, sessionId, command.label, options);
    case 'NameBranch':
      return new NameBranchCommand(caller, sessionId, command.version, command.name, options);
    case 'RetryCompensation':
      return new RetryCompensationCommand(caller, sessionId, command.rollbackId, command.toolCallId, options);
    case 'ResolveCompensation':
      return new ResolveCompensationCommand(caller, sessionId, command.rollbackId, command.toolCallId, command.note, options);
    case 'RecordCompensationOutcome':
      return new RecordCompensationOutcomeCommand(caller, sessionId, command.rollbackId, command.startedVersion, command.outcome, options);
    case 'CompleteRollback':
      return new CompleteRollbackCommand(caller, sessionId, command.rollbackId, options);
    case 'RecordShredding':
      return new RecordShreddingCommand(caller, sessionId, command.keyIds, command.reason, options);
    default:
      return new RecordStepCommand(caller, sessionId, command, options);
  }
}
