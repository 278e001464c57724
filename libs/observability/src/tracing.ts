import { context, propagation, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type BatchSpanProcessorOptions,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { otlpTraceExporter, otlpTracesProtocol } from './otlp-exporter';

export interface TracingOptions {
  /** `service.name` of the spans (rewind-api, rewind-worker). */
  serviceName: string;
  /** OTLP/HTTP traces endpoint, e.g. http://otel-collector:4318/v1/traces (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); its encoding from OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL. */
  otlpEndpoint?: string;
  /** Tests: an exporter that receives every span at once (e.g. InMemorySpanExporter). */
  exporter?: SpanExporter;
  /** OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER[_ARG]; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where an export failure is reported (once, at WARN); default stderr. */
  warn?: (message: string) => void;
}

/** Requests that are not work: probes and scrapes make no spans. */
const UNTRACED_PATHS = /^\/(metrics|health)(\/|\?|$)/;

/**
 * The sampler the OpenTelemetry specification's OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG
 * name (this SDK does not read them itself); parentbased_always_on when unset or unknown.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const traceIdRatio = () => new TraceIdRatioBasedSampler(Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 && env.OTEL_TRACES_SAMPLER_ARG !== '' ? ratio : 1);
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return traceIdRatio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: traceIdRatio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

type BatchConfig = Omit<BatchSpanProcessorOptions, 'exporter'>;

/**
 * The batch span processor's settings from OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_EXPORT_TIMEOUT,
 * OTEL_BSP_MAX_QUEUE_SIZE and OTEL_BSP_MAX_EXPORT_BATCH_SIZE (this SDK does not read them
 * itself); a missing, non-numeric or negative value keeps the SDK's default.
 */
export function batchConfigFromEnv(env: NodeJS.ProcessEnv): BatchConfig {
  const read = (name: string, positive = false) => {
    const value = env[name] === undefined || env[name] === '' ? NaN : Number(env[name]);
    return Number.isInteger(value) && (positive ? value > 0 : value >= 0) ? value : undefined;
  };
  const config: BatchConfig = {};
  const scheduledDelayMillis = read('OTEL_BSP_SCHEDULE_DELAY');
  const exportTimeoutMillis = read('OTEL_BSP_EXPORT_TIMEOUT');
  const maxQueueSize = read('OTEL_BSP_MAX_QUEUE_SIZE', true);
  const maxExportBatchSize = read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', true);
  if (scheduledDelayMillis !== undefined) config.scheduledDelayMillis = scheduledDelayMillis;
  if (exportTimeoutMillis !== undefined) config.exportTimeoutMillis = exportTimeoutMillis;
  if (maxQueueSize !== undefined) config.maxQueueSize = maxQueueSize;
  if (maxExportBatchSize !== undefined) config.maxExportBatchSize = maxExportBatchSize;
  return config;
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
  const env = options.env ?? process.env;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${JSON.stringify({ level: 'warn', context: 'Tracing', msg: message })}\n`));
  const { protocol, unsupported } = otlpTracesProtocol(env);
  // The exporter reads the rest of OTEL_EXPORTER_OTLP_* (headers, timeout, compression) itself.
  const exporter = options.exporter ?? (options.otlpEndpoint ? otlpTraceExporter(options.otlpEndpoint, protocol) : null);
  if (!exporter) return null;
  if (unsupported && !options.exporter) warn(unsupported);
  let warned = false;
  // An unreachable collector must not flood the log: the first failure is reported, the rest are not.
  setGlobalErrorHandler((error) => {
    if (warned) return;
    warned = true;
    warn(`Spans could not be exported (reported once): ${error instanceof Error ? error.message : String(error)}`);
  });
  const provider = new TracerProvider({
    // telemetry.sdk.name/language/version (the SDK's default resource), then the process's name;
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over both.
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': options.serviceName }))
      .merge(detectResources({ detectors: [envDetector] })),
    sampler: samplerFromEnv(env),
    spanProcessors: [options.exporter ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter, ...batchConfigFromEnv(env) })],
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
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? '') }),
      new UndiciInstrumentation(),
    ],
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

/**
 * Names the active HTTP server span after the route, as the semantic conventions ask
 * (`POST /v1/sessions/:id/messages`, with `http.route`): the HTTP instrumentation only knows the method.
 */
export function nameServerSpanAfterRoute(method: string, route: string | undefined): void {
  if (!route) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
}

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
