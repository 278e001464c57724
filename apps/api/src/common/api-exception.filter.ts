import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error';
import { toApiError } from './error-mapping';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A path that exists under other methods is a 405 naming them, not a 404. */
function wrongMethod(request: FastifyRequest): ApiError | null {
  const path = request.url.split('?')[0] ?? '';
  const allowed = METHODS.filter((method) => method !== request.method && request.server.findRoute({ method, url: path }) !== null);
  if (allowed.length === 0) return null;
  return new ApiError(
    405,
    'method_not_allowed',
    `${request.method} is not allowed on ${path.slice(0, 200)}: use ${allowed.join(' or ')}. See /docs for the API.`,
    [],
    {
      allow: allowed.join(', '),
    },
  );
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    let apiError = toApiError(exception, request.id);
    if (apiError.code === 'route_not_found') apiError = wrongMethod(request) ?? apiError;
    http.getResponse<FastifyReply>().headers(apiError.headers).status(apiError.status).send(apiError.body());
  }
}
