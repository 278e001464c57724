import { refusalOf } from '@rewind/contracts';
import type { ErrorDetail } from '@rewind/domain';
import { ConcurrencyError } from '@rewind/event-store';
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

export type ClassifiedError = { permanent: true; rejection: CommandRejection } | { permanent: false; message: string };

/**
 * The same classification the HTTP API applies (apps/api/src/common/error-mapping.ts):
 * whatever maps to a 4xx there is permanent here (DLQ + `rejected`); anything else
 * (store unreachable, disk full, a bug) is transient and retried with backoff.
 */
export function classifyCommandError(error: unknown, context: { expectedVersion?: number; commandId: string }): ClassifiedError {
  if (error instanceof CommandRejection) return { permanent: true, rejection: error };
  // No version was pinned: another writer won a race several times in a row; trying again later can succeed.
  if (error instanceof ConcurrencyError && context.expectedVersion === undefined) return { permanent: false, message: error.message };
  const refusal = refusalOf(error, {
    versionField: 'expectedVersion',
    versionHint: (actual) => `read it again, then send a new command (new commandId) with expectedVersion ${actual}.`,
    keyField: 'commandId',
    keyReused: () => ({
      code: 'command_id_reused',
      message: `commandId "${context.commandId}" was already used for a different command. Use a new commandId for a new command; send the same message again only to retry it.`,
      detail: 'already used with a different command',
    }),
  });
  if (refusal) return { permanent: true, rejection: new CommandRejection(refusal.code, refusal.message, refusal.details, refusal.status) };
  return { permanent: false, message: errorMessage(error) };
}
