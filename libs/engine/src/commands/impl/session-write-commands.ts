import type { JsonObject, JsonValue, MoveHead, RecordCompensationOutcome, SessionCommand } from '@rewind/domain';
import type { Caller, WriteOptions } from '../write-request';

/*
 * The write commands on a session, as plain classes: the class is what a dispatcher routes
 * by (Nest's CommandBus in the API and the worker, SessionCommands.dispatch in library mode),
 * and the same handler (../handlers) carries each one out whichever door it came in by.
 */

/** Starts a session (its id is drawn when the caller gives none). */
export class StartSessionCommand {
  constructor(
    readonly caller: Caller,
    readonly input: { sessionId?: string; title?: string; metadata?: JsonObject },
    readonly options: WriteOptions = {},
  ) {}
}

/**
 * One step an agent took: a message, a tool call's start or outcome, memory, a context
 * variable, a task, an interruption. Typed as any session command because transports map
 * to the wide type; anything but a step is refused.
 */
export class RecordStepCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly step: SessionCommand,
    readonly options: WriteOptions = {},
  ) {}
}

/**
 * Several steps in one atomic write, in order. Typed as any session command because a
 * batch arrives unchecked from a transport: anything but a step is refused, by its index.
 */
export class RecordStepsCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly steps: readonly SessionCommand[],
    readonly options: WriteOptions = {},
  ) {}
}

/** Labels the current head, so that a rollback can name it. */
export class CreateCheckpointCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly label: string,
    readonly options: WriteOptions = {},
  ) {}
}

/** Names a branch by one of its steps. */
export class NameBranchCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly version: number,
    readonly name: string,
    readonly options: WriteOptions = {},
  ) {}
}

/** Rollback, undo or redo: makes another step current (a rollback across effects starts the saga). */
export class MoveHeadCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly move: MoveHead,
    readonly options: WriteOptions = {},
  ) {}
}

/** An operator asks the saga to try a failed compensation again (recorded). */
export class RetryCompensationCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly rollbackId: string,
    readonly toolCallId: string,
    readonly options: WriteOptions = {},
  ) {}
}

/** An operator records that a failed compensation was undone by hand, with a note. */
export class ResolveCompensationCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly rollbackId: string,
    readonly toolCallId: string,
    readonly note: string,
    readonly options: WriteOptions = {},
  ) {}
}

/** Saves a named component's own state in the session (seed 001's plugin state). */
export class SaveComponentStateCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly name: string,
    readonly state: JsonValue,
    readonly options: WriteOptions = {},
  ) {}
}

/** The saga's record of one compensation attempt's outcome (callers in the `saga` scope only). */
export class RecordCompensationOutcomeCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly rollbackId: string,
    readonly startedVersion: number,
    readonly outcome: RecordCompensationOutcome['outcome'],
    readonly options: WriteOptions = {},
  ) {}
}

/** The saga completes a rollback once nothing is left to compensate (callers in the `saga` scope only). */
export class CompleteRollbackCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly rollbackId: string,
    readonly options: WriteOptions = {},
  ) {}
}

/** Records that a session's encryption keys were destroyed (shredding). */
export class RecordShreddingCommand {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly keyIds: string[],
    readonly reason: string,
    readonly options: WriteOptions = {},
  ) {}
}

export type SessionWriteCommand =
  | StartSessionCommand
  | RecordStepCommand
  | RecordStepsCommand
  | CreateCheckpointCommand
  | NameBranchCommand
  | MoveHeadCommand
  | RetryCompensationCommand
  | ResolveCompensationCommand
  | SaveComponentStateCommand
  | RecordCompensationOutcomeCommand
  | CompleteRollbackCommand
  | RecordShreddingCommand;
