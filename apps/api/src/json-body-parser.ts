import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { jsonCostProblem, type JsonCostLimits } from '@rewind/contracts';
import { ApiError } from './common/api-error';

/**
 * JSON bodies as Fastify parses them (prototype poisoning refused), after a linear check of
 * their shape (keys per object, values in all): a body that would cost more than its size to
 * parse and walk is refused with 413 before anything quadratic runs.
 */
export function useCostLimitedJsonParser(app: NestFastifyApplication, limits: JsonCostLimits, bodyLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
  const parseJson = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  app.useBodyParser('application/json', { bodyLimit }, (request, body, done) => {
    const text = body.toString('utf8');
    const problem = jsonCostProblem(text, limits);
    if (problem) {
      done(
        new ApiError(413, 'payload_too_large', `The request body is refused unread: ${problem.message}.`, [{ field: 'body', message: problem.message }]),
        undefined,
      );
      return;
    }
    parseJson(request as Parameters<typeof parseJson>[0], text, done);
  });
}
