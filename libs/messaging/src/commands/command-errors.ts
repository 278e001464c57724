import { DomainError, type DomainErrorKind, type ErrorDetail } from '../../../domain/src';
import { ConcurrencyError, IdempotencyKeyReusedError } from '../../../event-store/src';
import { errorMessage } from '../kafka/logger';

/** Why a command was refused, in the HTTP error shape (`{code, message, details}`) plus the HTTP status it maps to. */
export interface CommandErrorBody {
  code: string;
  message: string;
  details: ErrorDetail[];
}

/**
 * A command refused for good: malformed, unauthenticated, or rejected by the domain.
 * It goes to the DLQ and gets a `rejected` result; retrying the same message cannot help.
 */
export class CommandRejection extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** The HTTP status the same refusal has on the API (401 for unauthenticated, 400 for malformed, ...). */
    readonly status = 400,
  ) {
    super(message);
    this.name = 'CommandRejection';
  }

  body(): CommandErrorBody {
    return { code: this.code, message: this.message, details: this.details };
  }
}

const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  validation: 400,
  not_found: 404,
  conflict: 409,
  confirmation_required: 428,
};

export type ClassifiedError = { permanent: true; rejection: CommandRejection } | { permanent: false; message: string };

/**
 * The same classification the HTTP API applies (apps/api/src/common/error-mapping.ts):
 * whatever maps to a 4xx there is permanent here (DLQ + `rejected`); anything else
 * (store unreachable, disk full, a bug) is transient and retried with backoff.
 */
export function classifyCommandError(error: unknown, context: { expectedVersion?: number; commandId: string }): ClassifiedError {
  if (error instanceof CommandRejection) return { permanent: true, rejection: error };
  if (error instanceof DomainError)
    return { permanent: true, rejection: new CommandRejection(error.code, error.message, error.details, STATUS_OF_KIND[error.kind]) };
  if (error instanceof ConcurrencyError) {
    if (context.expectedVersion === undefined) {
      // No version was pinned: another writer won a race several times in a row; trying again later can succeed.
      return { permanent: false, message: error.message };
    }
    return {
      permanent: true,
      rejection: new CommandRejection(
        'version_conflict',
        `The session is at version ${error.actual}, not ${String(error.expected)}: read it again, then send a new command (new commandId) with expectedVersion ${error.actual}.`,
        [{ field: 'expectedVersion', message: `current version is ${error.actual}`, currentVersion: error.actual }],
        409,
      ),
    };
  }
  if (error instanceof IdempotencyKeyReusedError) {
    return {
      permanent: true,
      rejection: new CommandRejection(
        'command_id_reused',
        `commandId "${context.commandId}" was already used for a different command. Use a new commandId for a new command; send the same message again only to retry it.`,
        [{ field: 'commandId', message: 'already used with a different command' }],
        409,
      ),
    };
  }
  return { permanent: false, message: errorMessage(error) };
}
