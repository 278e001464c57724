import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { LoggerService } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import type { Logger } from 'pino';
import { redactUrl } from './redact-url';

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
 * nestjs-pino gives Nest's own logger the process's root pino logger. Its per-request middleware
 * (pino-http: a child logger per request, kept in an AsyncLocalStorage so that every line knows
 * its request) is not mounted (`forRoutes: []`): under load it cost ~5 % of the API's CPU, and
 * Node 20's AsyncLocalStorage adds a promise hook to every promise of the process (issue 17).
 * The access line comes from `logAccess`; the only lines written while a request runs (an
 * unexpected error, an unreachable store) name the request id themselves.
 */
export function httpLoggingParams(root: Logger): Params {
  return { pinoHttp: { logger: root }, forRoutes: [] };
}

/**
 * One access-log line per request (Fastify onResponse hook): info, or error for a 5xx; with its
 * `requestId` (what the client was sent in X-Request-Id), and no header (Authorization holds API keys);
 * secrets put in the query string by mistake are redacted (redact-url.ts).
 */
export function logAccess(root: Logger): onResponseHookHandler {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const status = reply.statusCode;
    const url = redactUrl(request.url);
    root[status >= 500 ? 'error' : 'info'](
      {
        requestId: request.id,
        req: { id: request.id, method: request.method, url },
        res: { statusCode: status },
        durationMs: Math.round(reply.elapsedTime),
      },
      `${request.method} ${url} ${status}`,
    );
    done();
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
