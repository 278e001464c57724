import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { LoggerService } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import type { Logger } from 'pino';

/** A client's X-Request-Id is kept when it is a plausible id; anything else is replaced (it ends up in logs and events). */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The request id (Fastify's `genReqId`): the client's X-Request-Id when plausible, else a new
 * UUID. Fastify hands it to the middleware as `req.id`, which pino-http then logs.
 */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/**
 * nestjs-pino over the process's root logger: one access-log line per request (info; error
 * for a 5xx), every log line written while a request runs carries its `requestId`, and no
 * header is logged (Authorization holds API keys).
 */
export function httpLoggingParams(root: Logger): Params {
  return {
    pinoHttp: {
      logger: root,
      quietReqLogger: true,
      customAttributeKeys: { reqId: 'requestId', responseTime: 'durationMs' },
      customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : 'info'),
      customSuccessMessage: (request, response) => `${request.method} ${request.url} ${response.statusCode}`,
      customErrorMessage: (request, response) => `${request.method} ${request.url} ${response.statusCode}`,
      // pino-http invents an error with its own stack for any 5xx; the exception filter logs the real one.
      customErrorObject: (_request, _response, _error, line: Record<string, unknown>) => {
        const { err: _err, ...rest } = line;
        return rest;
      },
      serializers: {
        req: (request: { id: string; method: string; url: string }) => ({ id: request.id, method: request.method, url: request.url }),
        res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
      },
    },
  };
}

/** Nest's start-up chatter (one line per module and per route) is for debugging, not for a production log. */
const START_UP_CONTEXTS = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader']);

/** Nest's logger over nestjs-pino's, with the start-up lines moved to debug. */
export class RewindNestLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...rest: unknown[]): void {
    if (START_UP_CONTEXTS.has(rest[rest.length - 1] as string)) this.inner.debug?.(message, ...rest);
    else this.inner.log(message, ...rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.inner.error(message, ...rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.inner.warn(message, ...rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.inner.debug?.(message, ...rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.inner.verbose?.(message, ...rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    (this.inner.fatal ?? this.inner.error).call(this.inner, message, ...rest);
  }
}
