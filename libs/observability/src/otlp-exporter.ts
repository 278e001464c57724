import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** The OTLP/HTTP encodings (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL); the specification's default is http/protobuf. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';
export const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];

/**
 * The traces protocol the standard variables ask for (traces-specific first), http/protobuf when
 * unset. `unsupported` names a value Rewind cannot honour (grpc, a typo): the caller says so and
 * exports with the default.
 */
export function otlpTracesProtocol(env: NodeJS.ProcessEnv): { protocol: OtlpProtocol; unsupported?: string } {
  const names = ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'];
  const name = names.find((n) => env[n] !== undefined && env[n]!.trim() !== '');
  if (!name) return { protocol: 'http/protobuf' };
  const value = env[name]!.trim();
  if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return { protocol: value as OtlpProtocol };
  return {
    protocol: 'http/protobuf',
    unsupported: `${name}=${value} is not supported (Rewind exports OTLP over HTTP): exporting with http/protobuf. Set http/protobuf or http/json.`,
  };
}

/**
 * OTLP/HTTP with protobuf bodies (application/x-protobuf): what @opentelemetry/exporter-trace-otlp-proto
 * does, built from the exporter base and the protobuf serializer the JSON exporter already brings.
 * It reads the rest of OTEL_EXPORTER_OTLP_* (headers, timeout, compression) as the JSON one does.
 */
class OtlpProtobufTraceExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor(url: string) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions({ url }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        // The serializer's span type is the SDK's ReadableSpan (the transformer's own copy of sdk-trace).
        ProtobufTraceSerializer as never,
        'otlp_http_span_exporter',
        TraceExporterMetricsHelper as never,
        undefined,
      ),
    );
  }
}

/** The span exporter for an OTLP/HTTP traces endpoint in the given encoding. */
export function otlpTraceExporter(url: string, protocol: OtlpProtocol): SpanExporter {
  return protocol === 'http/json' ? (new OtlpJsonTraceExporter({ url }) as unknown as SpanExporter) : new OtlpProtobufTraceExporter(url);
}
