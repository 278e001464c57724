import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toApiError } from './error-mapping';

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const apiError = toApiError(exception);
    host.switchToHttp().getResponse<FastifyReply>().headers(apiError.headers).status(apiError.status).send(apiError.body());
  }
}
