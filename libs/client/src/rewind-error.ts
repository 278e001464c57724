import type { components } from './generated/openapi';

export type ErrorDetail = components['schemas']['ErrorDetail'];

/** Codes the API documents; others may come (the union stays open). */
export type RewindErrorCode =
  | 'validation_failed'
  | 'invalid_json'
  | 'unauthorized'
  | 'session_not_found'
  | 'version_not_found'
  | 'rollback_not_found'
  | 'tool_not_found'
  | 'version_conflict'
  | 'idempotency_key_reused'
  | 'session_exists'
  | 'rollback_in_progress'
  | 'compensated_effects_on_path'
  | 'confirmation_required'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'store_unavailable'
  | 'too_many_requests'
  | 'network_error'
  | 'rollback_wait_timeout'
  | (string & {});

/**
 * A refusal from the API (`{error: {code, message, details[]}}`), or a request that never got
 * an answer (status 0, code network_error). Nothing was persisted by a refused request.
 */
export class RewindError extends Error {
  constructor(
    readonly status: number,
    readonly code: RewindErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'RewindError';
  }

  /** The error an answer carries; a body outside the documented shape (e.g. a proxy's page) still gives one. */
  static fromResponse(status: number, body: unknown): RewindError {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      return new RewindError(status, error.code, error.message, Array.isArray(error.details) ? (error.details as ErrorDetail[]) : []);
    }
    const text = typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body)?.slice(0, 200);
    return new RewindError(status, `http_${status}`, `The server answered ${status} without a Rewind error body: ${text ?? '(empty)'}`);
  }

  /** For If-Match conflicts: the version the session is at now. */
  get currentVersion(): number | undefined {
    const detail = this.details.find((d) => typeof (d as { currentVersion?: unknown }).currentVersion === 'number');
    return detail ? (detail.currentVersion as number) : undefined;
  }
}

/** True when `error` is a RewindError (with that code, if given). */
export function isRewindError(error: unknown, code?: RewindErrorCode): error is RewindError {
  return error instanceof RewindError && (code === undefined || error.code === code);
}
