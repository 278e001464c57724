import { DomainError, type DomainErrorKind, type ErrorDetail } from '@rewind/domain';
import { ConcurrencyError, IdempotencyKeyReusedError } from '@rewind/event-store';

/** A command refused for good, in the documented error shape and the HTTP status it has. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  details: ErrorDetail[];
}

/** How a transport names the version pin and the idempotency key (HTTP headers, Kafka envelope fields). */
export interface RefusalWording {
  /** e.g. `If-Match`, `expectedVersion`. */
  versionField: string;
  /** What to do about a version conflict, given the current version. */
  versionHint: (actual: number) => string;
  /** e.g. `Idempotency-Key`, `commandId`. */
  keyField: string;
  keyReused: (error: IdempotencyKeyReusedError) => { code: string; message: string; detail: string };
}

export const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  validation: 400,
  not_found: 404,
  conflict: 409,
  confirmation_required: 428,
};

/**
 * The one table of refusals shared by the HTTP API and the Kafka command consumer: the domain's
 * own errors, a version conflict, a reused idempotency key. Anything else (null) is not the
 * caller's doing: the transport decides (500/503, or retry with backoff).
 */
export function refusalOf(error: unknown, wording: RefusalWording): Refusal | null {
  if (error instanceof DomainError) return { status: STATUS_OF_KIND[error.kind], code: error.code, message: error.message, details: error.details };
  if (error instanceof ConcurrencyError) {
    return {
      status: 409,
      code: 'version_conflict',
      message: `The session is at version ${error.actual}, not ${String(error.expected)}: ${wording.versionHint(error.actual)}`,
      details: [{ field: wording.versionField, message: `current version is ${error.actual}`, currentVersion: error.actual }],
    };
  }
  if (error instanceof IdempotencyKeyReusedError) {
    const { code, message, detail } = wording.keyReused(error);
    return { status: 409, code, message, details: [{ field: wording.keyField, message: detail }] };
  }
  return null;
}
