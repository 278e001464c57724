import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { inSpan, otlpTracesEndpoint, startTracing } from './tracing';

describe('tracing when no OTLP endpoint is set', () => {
  it('stays off: no provider is installed and spans are the API’s non-recording ones', async () => {
    expect(startTracing({ serviceName: 'rewind-test' })).toBeNull();
    const span = await inSpan('rewind.test', {}, async () => trace.getActiveSpan());
    expect(span?.isRecording() ?? false).toBe(false);
  });

  it('reads the standard OTLP variables, the traces-specific one first', () => {
    expect(otlpTracesEndpoint({})).toBeUndefined();
    expect(otlpTracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/t' })).toBe('http://b:4318/t');
  });
});
