import { context, propagation, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';

export interface TracingOptions {
  /** `service.name` of the spans (rewind-api, rewind-worker). */
  serviceName: string;
  /** OTLP/HTTP traces endpoint, e.g. http://otel-collector:4318/v1/traces (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). */
  otlpEndpoint?: string;
  /** Tests: an exporter that receives every span at once (e.g. InMemorySpanExporter). */
  exporter?: SpanExporter;
}

export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Turns tracing on: HTTP in and out (Fastify's server, compensation calls through fetch),
 * and Rewind's own spans (command, append, saga, Kafka publish and consume), exported over
 * OTLP/HTTP. Returns null when neither an endpoint nor an exporter is given: then the
 * OpenTelemetry API stays its no-op self and tracing costs nothing. Call it before the
 * HTTP server and the Kafka client are created.
 */
export function startTracing(options: TracingOptions): Tracing | null {
  const exporter = options.exporter ?? (options.otlpEndpoint ? new OTLPTraceExporter({ url: options.otlpEndpoint }) : null);
  if (!exporter) return null;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [options.exporter ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    // Kafka is traced by the bus itself (@rewind/messaging/kafka: a PRODUCER span and `traceparent`
    // per publish, a CONSUMER span per message, child of the producer's), not by the kafkajs
    // instrumentation: with eachBatch that one only links a batch to its producers, so the work a
    // command causes would not join the sender's trace.
    instrumentations: [new HttpInstrumentation(), new UndiciInstrumentation()],
  });
  return {
    async shutdown() {
      unregister();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** Read by @rewind/config with the other settings; exported here too, where tracing is started. */
export { otlpTracesEndpoint } from '@rewind/config';

const tracer = () => trace.getTracer('rewind');

/** Runs `work` in a span (a child of the active one); records a thrown error on it. A no-op span when tracing is off. */
export async function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
