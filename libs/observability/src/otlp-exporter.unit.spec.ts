import { describe, expect, it } from 'vitest';
import { otlpTracesProtocol } from './otlp-exporter';

describe('otlpTracesProtocol (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL)', () => {
  it('is http/protobuf, the specification default, when neither variable is set (or set empty)', () => {
    expect(otlpTracesProtocol({})).toEqual({ protocol: 'http/protobuf' });
    expect(otlpTracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: ' ' })).toEqual({ protocol: 'http/protobuf' });
  });

  it('honours http/json and http/protobuf, the traces-specific variable first', () => {
    expect(otlpTracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({ protocol: 'http/json' });
    expect(otlpTracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toEqual({
      protocol: 'http/protobuf',
    });
  });

  it('names an unsupported value (grpc, a typo) and what to set, and falls back to http/protobuf', () => {
    const { protocol, unsupported } = otlpTracesProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' });
    expect(protocol).toBe('http/protobuf');
    expect(unsupported).toMatch(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported.*http\/protobuf or http\/json/);
  });
});
