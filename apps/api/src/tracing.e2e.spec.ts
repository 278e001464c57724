import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startTracing, type Tracing } from '@rewind/observability';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TravelService } from '@rewind/demo';
import type { TestApp } from '../../../test/support/test-app';

// Its own file (its own process): tracing sets OpenTelemetry's global provider.
describe('traces (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let t: TestApp;
  let travel: TravelService;
  beforeAll(async () => {
    // As main.ts does: tracing first, then the modules that load Fastify.
    tracing = startTracing({ serviceName: 'rewind-api-test', exporter })!;
    const { startTestApp } = await import('../../../test/support/test-app.js');
    t = await startTestApp();
    const { TravelService } = await import('@rewind/demo');
    travel = new TravelService();
    await travel.start();
  });
  afterAll(async () => {
    await travel.stop();
    await t.close();
    await tracing.shutdown();
  });

  it('names server spans after the route (http.route) and makes none for /metrics and the probes', async () => {
    exporter.reset();
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'routed' })).status).toBe(201);
    expect((await t.http('POST', '/v1/sessions/routed/messages', { role: 'user', content: 'hi' })).status).toBe(201);
    await fetch(`${t.baseUrl}/metrics`);
    await fetch(`${t.baseUrl}/health/live`);
    const servers = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers.map((s) => [s.name, s.attributes['http.route']])).toEqual([
      ['POST /v1/sessions', '/v1/sessions'],
      ['POST /v1/sessions/:id/messages', '/v1/sessions/:id/messages'],
    ]);
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
    expect(command!.attributes).toMatchObject({
      'rewind.command.type': 'StartSession',
      'rewind.stream_id': 'session:default:traced',
      'rewind.session_id': 'traced',
      'rewind.event_count': 1,
    });
    expect(append!.attributes).toMatchObject({ 'rewind.stream_id': 'session:default:traced', 'rewind.event_count': 1 });
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

  it('traces a rollback from the request through the saga to each compensation’s HTTP call, which the compensator receives with traceparent', async () => {
    const registered = await t.http('PUT', '/v1/tools/book_flights', {
      kind: 'reversible',
      compensation: { channel: 'http', target: `${travel.url}/flights/{{output.bookingId}}/cancel` },
      retry: { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 5, timeoutMs: 2000 },
    });
    expect(registered.status).toBe(200);
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'traced-rollback' })).status).toBe(201);
    expect((await t.http('POST', '/v1/sessions/traced-rollback/tool-calls', { toolCallId: 'f1', tool: 'book_flights', input: { to: 'OPO' } })).status).toBe(
      201,
    );
    const booked = await fetch(`${travel.url}/flights`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'OPO' }),
    });
    const output = (await booked.json()) as { bookingId: string };
    expect((await t.http('POST', '/v1/sessions/traced-rollback/tool-calls/f1/succeed', { output })).status).toBe(200);

    exporter.reset();
    const undo = await t.http('POST', '/v1/sessions/traced-rollback/rollback', { toVersion: 1, waitMs: 5000 });
    expect(undo.body.rollback.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    const names = spans.map((s) => `${s.name}/${SpanKind[s.kind]}`).join(', ');
    const id = (s: ReadableSpan) => s.spanContext().spanId;
    const rollback = spans.find((s) => s.name === 'rewind.saga.rollback');
    expect(rollback, names).toBeDefined();
    expect(rollback!.attributes).toMatchObject({
      'rewind.session_id': 'traced-rollback',
      'rewind.rollback_id': undo.body.rollbackId,
      'rewind.rollback_status': 'completed',
    });
    const compensation = spans.find((s) => s.name === 'rewind.saga.compensation');
    expect(compensation!.parentSpanContext?.spanId).toBe(id(rollback!));
    expect(compensation!.attributes).toMatchObject({
      'rewind.tool': 'book_flights',
      'rewind.tool_call_id': 'f1',
      'rewind.compensation.attempt': 1,
      'rewind.compensation.status': 'applied',
    });
    // The compensation's HTTP call (undici instrumentation) nests under it, and the compensator's server continues it.
    const calls = spans.filter((s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === id(compensation!));
    expect(calls, names).toHaveLength(1);
    const call = calls[0];
    expect(spans.filter((s) => s.parentSpanContext?.spanId === id(call!) && s.kind === SpanKind.CLIENT)).toEqual([]);
    const compensator = spans.find((s) => s.kind === SpanKind.SERVER && s.parentSpanContext?.spanId === id(call!));
    expect(compensator, names).toBeDefined();
    expect(compensator!.attributes['url.path'] ?? compensator!.attributes['http.target']).toBe(`/flights/${output.bookingId}/cancel`);
    // The saga's commands (recording the outcome) nest under the rollback too; all one trace with the request that asked for it.
    expect(spans.some((s) => s.name === 'rewind.command' && s.parentSpanContext?.spanId === id(rollback!))).toBe(true);
    const request = spans.find((s) => s.kind === SpanKind.SERVER && s.parentSpanContext?.spanId !== id(call!));
    expect(new Set([request, rollback, compensation, call, compensator].map((s) => s!.spanContext().traceId)).size).toBe(1);
  });
});
