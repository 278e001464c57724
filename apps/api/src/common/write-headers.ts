import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { WriteOptions } from '@rewind/engine';
import { ApiError } from './api-error';

/** Reads `Idempotency-Key`, `If-Match` and `X-Correlation-Id` (else the request id) into write options. */
export const WriteHeaders = createParamDecorator((_: unknown, ctx: ExecutionContext): WriteOptions => {
  const request = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; id?: unknown }>();
  const headers = request.headers;
  const options: WriteOptions = {};
  const key = headers['idempotency-key'];
  if (key !== undefined) {
    if (key.length < 1 || key.length > 255 || /[\u0000-\u001f]/.test(key)) {
      throw new ApiError(400, 'validation_failed', 'Idempotency-Key must be 1 to 255 printable characters.', [
        { field: 'Idempotency-Key', message: 'invalid' },
      ]);
    }
    options.idempotencyKey = key;
  }
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(ifMatch);
    if (!match) {
      throw new ApiError(400, 'validation_failed', 'If-Match must be a stream version, e.g. If-Match: 12 (or "12").', [
        { field: 'If-Match', message: 'must be a whole number' },
      ]);
    }
    options.expectedVersion = Number(match[1]);
  }
  const correlationId = headers['x-correlation-id'];
  if (correlationId !== undefined && correlationId.length > 0 && correlationId.length <= 128) options.correlationId = correlationId;
  // The request id (X-Request-Id or generated) ties the events to this request's log lines.
  else if (typeof request.id === 'string') options.correlationId = request.id;
  return options;
});
