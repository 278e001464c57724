import { HttpException, Logger } from '@nestjs/common';
import { refusalOf, type RefusalWording } from '@rewind/contracts';
import { ApiError } from './api-error';

const CODE_OF_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
};

const logger = new Logger('Errors');

const HTTP_WORDING: RefusalWording = {
  versionField: 'If-Match',
  versionHint: (actual) => `read it again, then retry with If-Match: ${actual}.`,
  keyField: 'Idempotency-Key',
  keyReused: (error) => ({
    code: 'idempotency_key_reused',
    message: `${error.message} Use a new Idempotency-Key for a new request.`,
    detail: 'already used with a different request',
  }),
};

/** Turns anything thrown while serving a request into the documented error shape; what is logged names the request. */
export function toApiError(error: unknown, requestId?: string): ApiError {
  if (error instanceof ApiError) return error;
  const refusal = refusalOf(error, HTTP_WORDING);
  if (refusal) return new ApiError(refusal.status, refusal.code, refusal.message, refusal.details);
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response ? String((response as { message: unknown }).message) : error.message;
    if (status === 404) return new ApiError(404, 'route_not_found', `${message}. See /docs for the API.`);
    if (status === 413)
      return new ApiError(413, 'payload_too_large', 'The request body is larger than the limit (REWIND_MAX_BODY_BYTES). Send less, or raise the limit.');
    if (status === 400 && /JSON/.test(message)) return new ApiError(400, 'invalid_json', `The body is not valid JSON: ${message}`);
    return new ApiError(status, CODE_OF_STATUS[status] ?? 'error', message);
  }
  if (isStoreUnreachable(error)) {
    logger.error({ requestId, msg: `The event store is unreachable: ${(error as Error).message}` });
    return new ApiError(
      503,
      'store_unavailable',
      'The event store cannot be reached right now, so this request was not acknowledged. Retry shortly with the same Idempotency-Key: it is applied at most once.',
      [],
      { 'retry-after': '1' },
    );
  }
  // The store refused an append larger than it takes (EventStoreDB's MaxAppendSize): nothing was written.
  if ((error as Error | null)?.name === 'AppendTooLargeError') return new ApiError(413, 'payload_too_large', (error as Error).message);
  const fastifyError = error as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    const status = fastifyError.statusCode;
    if (status === 413)
      return new ApiError(413, 'payload_too_large', `The request body is larger than the limit (REWIND_MAX_BODY_BYTES). Send less, or raise the limit.`);
    if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(fastifyError.message ?? '')) {
      return new ApiError(400, 'invalid_json', `The body is not valid JSON: ${fastifyError.message}`);
    }
    return new ApiError(status, CODE_OF_STATUS[status] ?? 'bad_request', fastifyError.message ?? 'Bad request');
  }
  logger.error({ requestId, msg: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return new ApiError(
    500,
    'internal_error',
    'Something went wrong on our side; the request may not have been applied. Retry with the same Idempotency-Key to be safe. Details are in the server log.',
  );
}

/** Connection-level failures of the database (not query errors): the write did not happen. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
function isStoreUnreachable(error: unknown): boolean {
  const e = error as { code?: string; message?: string; name?: string } | null;
  if (!e) return false;
  return (
    e.name === 'PostgresUnavailableError' ||
    e.name === 'EventStoreDbUnavailableError' ||
    (typeof e.code === 'string' && CONNECTION_ERRORS.has(e.code)) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(e.message ?? '')
  );
}
