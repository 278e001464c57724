import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startTracing, type Tracing } from '@rewind/observability';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../test/support/test-app';

// Its own file (its own process): tracing sets OpenTelemetry's global provider.
describe('traces (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let t: TestApp;
  beforeAll(async () => {
    // As main.ts does: tracing first, then the modules that load Fastify.
    tracing = startTracing({ serviceName: 'rewind-api-test', exporter })!;
    const { startTestApp } = await import('../../../test/support/test-app.js');
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    await tracing.shutdown();
  });

  it('nests HTTP request -> command -> append in one trace', async () => {
    exporter.reset();
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'traced', title: 'x' })).status).toBe(201);
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER);
    const command = spans.find((s) => s.name === 'rewind.command');
    const append = spans.find((s) => s.name === 'rewind.event-store.append');
    expect(server, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(command).toBeDefined();
    expect(append).toBeDefined();
    const id = (s: ReadableSpan) => s.spanContext().spanId;
    expect(command!.attributes['rewind.stream_id']).toBe('session:default:traced');
    expect(command!.parentSpanContext?.spanId).toBe(id(server!));
    expect(append!.parentSpanContext?.spanId).toBe(id(command!));
    expect(new Set([server, command, append].map((s) => s!.spanContext().traceId)).size).toBe(1);
  });

  it('propagates the trace over HTTP (W3C traceparent): a traced caller’s request continues its trace', async () => {
    exporter.reset();
    // The test's own fetch is traced too (undici instrumentation, as for compensation calls): it sends traceparent.
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'traced-2', title: 'x' })).status).toBe(201);
    const spans = exporter.getFinishedSpans();
    const client = spans.find((s) => s.kind === SpanKind.CLIENT);
    const server = spans.find((s) => s.kind === SpanKind.SERVER);
    const command = spans.find((s) => s.name === 'rewind.command');
    expect(client, spans.map((s) => `${s.name}/${s.kind}`).join(', ')).toBeDefined();
    expect(server!.parentSpanContext?.spanId).toBe(client!.spanContext().spanId);
    expect(command!.spanContext().traceId).toBe(client!.spanContext().traceId);
  });
});
