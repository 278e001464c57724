import type { ErrorDetail } from '@rewind/domain';

/** The documented error shape: `{ error: { code, message, details[] } }`. */
export interface ErrorBody {
  error: { code: string; message: string; details: ErrorDetail[] };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}
