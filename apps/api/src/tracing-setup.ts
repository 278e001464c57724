import { otlpTracesEndpoint, startTracing } from '@rewind/observability';

/**
 * Imported first by main.ts: the instrumentations patch modules as they load, so tracing
 * starts before Fastify is required. Off (null, free) unless an OTLP endpoint is set.
 */
export const tracing = startTracing({ serviceName: 'rewind-api', otlpEndpoint: otlpTracesEndpoint(process.env) });
