import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { createLogger, nameServerSpanAfterRoute } from '@rewind/observability';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { ensureAdminKey, type ApiKeyStore, type FieldEncryption } from '@rewind/tenancy';
import { AppModule } from './app.module';
import type { RewindConfig } from '@rewind/config';
import { openBackend } from '@rewind/runtime';
import { RewindMetrics } from './metrics/metrics';
import { API_KEY_STORE } from './infrastructure/tokens';
import { serveUi } from './ui/serve-ui';
import { decryptAnswers } from './encryption/decrypt-answers';
import { FIELD_ENCRYPTION } from './encryption/tokens';
import { findUnsafeInput } from '@rewind/contracts';
import { ApiError } from './common/api-error';
import { clientErrorHandler, frameworkErrors } from './common/framework-errors';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { useCostLimitedJsonParser } from './json-body-parser';
import { logAccess, requestIdOf, RewindNestLogger } from './logging/http-logging';

export interface CreateAppOptions {
  /** Where the JSON log lines go (default: stdout). */
  logDestination?: DestinationStream;
}

export interface CreatedApp {
  app: NestFastifyApplication;
  /** The admin key generated on first start (shown once), or null. */
  generatedAdminKey: string | null;
}

/** Builds the HTTP app (used by main.ts and by the end-to-end tests). */
/** Trusts the `hops` proxies nearest the API, as Fastify's numeric trustProxy does. */
const trustHops =
  (hops: number) =>
  (_address: string, hop: number): boolean =>
    hop < hops;

export async function createApp(config: RewindConfig, options: CreateAppOptions = {}): Promise<CreatedApp> {
  const rootLogger = createLogger(config.logLevel, options.logDestination);
  const adapter = new FastifyAdapter({
    bodyLimit: config.maxBodyBytes,
    frameworkErrors,
    clientErrorHandler,
    // Fastify's default (100) made ids of 101-128 characters and longer names unroutable (a 404);
    // this fits a 256-character name percent-encoded, and the pipes refuse what is too long by name.
    routerOptions: { maxParamLength: 4096 },
    // X-Request-Id is checked by requestIdOf, not taken as-is.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // X-Forwarded-For names the client (failed-auth throttling, logs) only from the proxies REWIND_TRUST_PROXY names.
    // A hop count as the function proxy-addr makes of one (Fastify's types since 5.12 take no number).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
  });
  // Opened before the app is built: an unreachable database stops the start with one sentence, not a stack.
  const backend = await openBackend(config);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forConfig(config, backend, rootLogger), adapter, {
    // Nest's own lines wait for the JSON logger (useLogger below) instead of going out as coloured text.
    bufferLogs: true,
    // Start-up failures reach main(), which explains them in one line instead of a stack.
    abortOnError: false,
  });
  app.useLogger(new RewindNestLogger(app.get(PinoNestLogger)));
  useCostLimitedJsonParser(app, config.jsonCostLimits, config.maxBodyBytes);
  // The hooks every request runs are callbacks, not async functions: one promise and one
  // microtask less each, on every request (issue 26: the per-request machinery).
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    // Every response names its request id, so a client can quote it when reporting a problem.
    void reply.header('x-request-id', request.id);
    nameServerSpanAfterRoute(request.method, request.routeOptions.url);
    // Only JSON bodies are accepted; say so plainly instead of failing field validation.
    const type = request.headers['content-type'];
    const hasBody = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
    if (hasBody && type !== undefined && !/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
      void reply.status(415).send({
        error: {
          code: 'unsupported_media_type',
          message: `Content-Type "${type}" is not accepted: send JSON with Content-Type: application/json.`,
          details: [],
        },
      });
      return;
    }
    done();
  });
  // Hostile JSON (deep nesting, text no store can hold) is refused before any guard,
  // interceptor or pipe walks it, once: the validation pipe does not scan again.
  fastify.addHook('preValidation', (request, reply, done) => {
    // Path and query parameters too: interceptors read the session id before any pipe runs.
    const unsafe =
      findUnsafeInput(request.params ?? {}) ?? findUnsafeInput(request.query ?? {}) ?? (request.body !== undefined ? findUnsafeInput(request.body) : null);
    if (unsafe) {
      void reply
        .status(400)
        .send(
          new ApiError(400, 'validation_failed', `The request is not valid: ${unsafe.message}.`, [{ field: unsafe.field, message: unsafe.message }]).body(),
        );
      return;
    }
    done();
  });
  // Answers are decrypted for the caller's tenant (EncryptRequestFieldsGuard encrypts on the way in).
  fastify.addHook('onSend', decryptAnswers(app.get<FieldEncryption>(FIELD_ENCRYPTION)));
  fastify.addHook('onResponse', logAccess(rootLogger));
  const metrics = app.get(RewindMetrics);
  fastify.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids would explode the label set.
    const route = request.routeOptions?.url ?? 'unmatched';
    metrics.httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  app.enableShutdownHooks();
  serveUi(app);

  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });

  const keys = app.get<ApiKeyStore>(API_KEY_STORE);
  const { generated, refused } = await ensureAdminKey(keys, config.adminKey);
  if (refused) rootLogger.error({ event: 'admin_key_refused' }, refused);
  return { app, generatedAdminKey: generated };
}

export const logger = new Logger('Rewind');
