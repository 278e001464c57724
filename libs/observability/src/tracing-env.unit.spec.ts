import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { context, SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { batchConfigFromEnv, samplerFromEnv } from './tracing';

const decide = (env: NodeJS.ProcessEnv, traceId = '0af7651916cd43dd8448eb211c80319c') =>
  samplerFromEnv(env).shouldSample(context.active(), traceId, 'span', SpanKind.SERVER, {}, []).decision;

describe('samplerFromEnv (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG)', () => {
  it('samples everything by default and with always_on, nothing with always_off', () => {
    expect(decide({})).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide({ OTEL_TRACES_SAMPLER: 'always_on' })).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe(SamplingDecision.NOT_RECORD);
    expect(decide({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(SamplingDecision.NOT_RECORD);
  });

  it('samples by trace id with traceidratio and its argument', () => {
    expect(decide({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })).toBe(SamplingDecision.NOT_RECORD);
    expect(decide({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' })).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });
});

describe('batchConfigFromEnv (OTEL_BSP_*)', () => {
  it('reads the four settings and keeps the defaults for missing or unusable values', () => {
    expect(
      batchConfigFromEnv({ OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_BSP_EXPORT_TIMEOUT: '0', OTEL_BSP_MAX_QUEUE_SIZE: '64', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '32' }),
    ).toEqual({ scheduledDelayMillis: 100, exportTimeoutMillis: 0, maxQueueSize: 64, maxExportBatchSize: 32 });
    expect(batchConfigFromEnv({})).toEqual({});
    expect(
      batchConfigFromEnv({ OTEL_BSP_SCHEDULE_DELAY: 'soon', OTEL_BSP_EXPORT_TIMEOUT: '-1', OTEL_BSP_MAX_QUEUE_SIZE: '0', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '' }),
    ).toEqual({});
  });
});
