import { otlpTracesEndpoint, startTracing } from '@rewind/observability';

/**
 * Imported first by main.ts: the instrumentations patch modules as they load, so tracing
 * starts before kafkajs is required. Off (null, free) unless an OTLP endpoint is set.
 */
export const tracing = startTracing({ serviceName: 'rewind-worker', otlpEndpoint: otlpTracesEndpoint(process.env) });
