import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Caller } from '@rewind/engine';
import { mergeMap, type Observable } from 'rxjs';
import { ApiError } from '../common/api-error';
import { RecallQuery } from './recall.query';

const CONTEXT_ROUTE = '/v1/sessions/:id/context';

/**
 * `GET /v1/sessions/:id/context?recall=<question>`: the context window plus a `recalled`
 * block (what branch-aware recall finds for the question). Kept beside the sessions
 * controller instead of inside it: the parameter is taken off the query before the context
 * DTO is validated, and the block is added to the answer after it was built.
 */
@Injectable()
export class ContextRecallInterceptor implements NestInterceptor {
  constructor(private readonly queries: QueryBus) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context
      .switchToHttp()
      .getRequest<{ method: string; routeOptions?: { url?: string }; query?: Record<string, unknown>; caller?: Caller; params?: Record<string, string> }>();
    if (request.method !== 'GET' || request.routeOptions?.url !== CONTEXT_ROUTE || request.query?.recall === undefined) return next.handle();
    const question = request.query.recall;
    delete request.query.recall;
    if (typeof question !== 'string' || question.trim().length === 0 || question.length > 2000) {
      throw new ApiError(400, 'validation_failed', 'The request is not valid: recall: must be a question of 1 to 2000 characters.', [
        { field: 'recall', message: 'must be a question of 1 to 2000 characters' },
      ]);
    }
    const at = request.query.at === undefined ? undefined : Number(request.query.at);
    return next.handle().pipe(
      mergeMap(async (window: object) => {
        const recalled = await this.queries.execute(
          new RecallQuery(request.caller!, request.params!.id!, { query: question, ...(at !== undefined && Number.isInteger(at) ? { at } : {}) }),
        );
        return { ...window, recalled };
      }),
    );
  }
}
