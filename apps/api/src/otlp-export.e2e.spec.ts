/*
 * The API as a real process exporting its traces over OTLP/HTTP to a receiver, as a deployment
 * does with a collector.
 *
 * The receiver: no OpenTelemetry Collector (nor any other OTLP receiver) can be installed here —
 * the registries reachable (npm, Maven Central, Debian) carry the SDKs, the exporters and the
 * Java proto classes, not a collector. So the receiver is an HTTP server in this test that
 * speaks the OTLP/HTTP protocol of the specification (POST /v1/traces, an
 * ExportTraceServiceRequest answered by an ExportTraceServiceResponse) in both encodings:
 * binary protobuf (application/x-protobuf, http/protobuf: the specification's default), decoded
 * field by field from the wire format with opentelemetry-proto's field numbers, and JSON
 * (application/json, http/json) by the protobuf JSON mapping: hex ids, integer span kinds, typed
 * AnyValues. Anything else it receives fails the test.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, type Http } from '../../../test/support/http-client';
import { startServerProcess, type ServerProcess } from '../../../test/support/server-process';

/** OTLP span kinds (opentelemetry.proto.trace.v1.Span.SpanKind). */
const SERVER = 2;
const CLIENT = 3;

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

interface ReceivedSpan {
  /** The content-type the export came in. */
  encoding: string;
  service: string;
  resource: Record<string, unknown>;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  throw new Error(`not an OTLP AnyValue: ${JSON.stringify(value)}`);
}

const attributesOf = (list: KeyValue[] | undefined): Record<string, unknown> => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

/** Decodes an ExportTraceServiceRequest (OTLP/JSON); throws on anything the protocol does not allow. */
function decodeExportRequest(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as {
    resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
  };
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const traceId = span.traceId as string;
        const spanId = span.spanId as string;
        const parentSpanId = (span.parentSpanId as string | undefined) ?? '';
        if (!/^[0-9a-f]{32}$/.test(traceId) || !/^[0-9a-f]{16}$/.test(spanId) || !/^([0-9a-f]{16})?$/.test(parentSpanId)) {
          throw new Error(`ids not in OTLP/JSON's hex form: ${JSON.stringify({ traceId, spanId, parentSpanId })}`);
        }
        if (typeof span.name !== 'string' || !Number.isInteger(span.kind) || (span.kind as number) < 0 || (span.kind as number) > 5) {
          throw new Error(`not an OTLP span: ${JSON.stringify(span)}`);
        }
        spans.push({
          encoding: 'application/json',
          service: resource['service.name'] as string,
          resource,
          traceId,
          spanId,
          parentSpanId,
          name: span.name,
          kind: span.kind as number,
          attributes: attributesOf(span.attributes as KeyValue[] | undefined),
        });
      }
    }
  }
  return spans;
}

/** One field of a protobuf message on the wire: varints as bigint, fixed64 as 8 bytes, length-delimited as bytes. */
type WireField = { number: number; varint?: bigint; bytes?: Buffer };

/** Splits a protobuf message into its fields (wire types 0, 1, 2 and 5; groups are not OTLP). */
function wireFields(message: Buffer): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= message.length) throw new Error('protobuf: a varint runs past the end of the message');
      const byte = message[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < message.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wireType = key & 7;
    if (wireType === 0) fields.push({ number, varint: varint() });
    else if (wireType === 1 || wireType === 5) {
      const size = wireType === 1 ? 8 : 4;
      fields.push({ number, bytes: message.subarray(at, at + size) });
      at += size;
    } else if (wireType === 2) {
      const length = Number(varint());
      if (at + length > message.length) throw new Error('protobuf: a length-delimited field runs past the end of the message');
      fields.push({ number, bytes: message.subarray(at, at + length) });
      at += length;
    } else throw new Error(`protobuf: wire type ${wireType} is not used by OTLP`);
  }
  return fields;
}

const all = (fields: WireField[], number: number): Buffer[] => fields.filter((f) => f.number === number).map((f) => f.bytes!);
const one = (fields: WireField[], number: number): Buffer | undefined => all(fields, number)[0];

/** opentelemetry.proto.common.v1.AnyValue. */
function protoValueOf(message: Buffer): unknown {
  const field = wireFields(message)[0];
  if (!field) return null;
  switch (field.number) {
    case 1:
      return field.bytes!.toString('utf8');
    case 2:
      return field.varint !== 0n;
    case 3:
      return Number(BigInt.asIntN(64, field.varint!));
    case 4:
      return field.bytes!.readDoubleLE(0);
    case 5:
      return all(wireFields(field.bytes!), 1).map(protoValueOf);
    default:
      throw new Error(`protobuf: AnyValue field ${field.number} is not expected here`);
  }
}

/** repeated opentelemetry.proto.common.v1.KeyValue (key = 1, value = 2). */
const protoAttributesOf = (list: Buffer[]): Record<string, unknown> =>
  Object.fromEntries(
    list.map((kv) => {
      const fields = wireFields(kv);
      const value = one(fields, 2);
      return [one(fields, 1)!.toString('utf8'), value ? protoValueOf(value) : null];
    }),
  );

/** Decodes an ExportTraceServiceRequest in the binary protobuf encoding (opentelemetry-proto's field numbers). */
function decodeProtobufExportRequest(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of all(wireFields(body), 1)) {
    const rs = wireFields(resourceSpans);
    const resourceMessage = one(rs, 1);
    const resource = resourceMessage ? protoAttributesOf(all(wireFields(resourceMessage), 1)) : {};
    for (const scopeSpans of all(rs, 2)) {
      for (const spanMessage of all(wireFields(scopeSpans), 2)) {
        const span = wireFields(spanMessage);
        const traceId = one(span, 1)?.toString('hex') ?? '';
        const spanId = one(span, 2)?.toString('hex') ?? '';
        const parentSpanId = one(span, 4)?.toString('hex') ?? '';
        if (!/^[0-9a-f]{32}$/.test(traceId) || !/^[0-9a-f]{16}$/.test(spanId) || !/^([0-9a-f]{16})?$/.test(parentSpanId)) {
          throw new Error(`ids of the wrong size: ${JSON.stringify({ traceId, spanId, parentSpanId })}`);
        }
        const kind = Number(span.find((f) => f.number === 6)?.varint ?? 0n);
        const name = one(span, 5)?.toString('utf8');
        if (!name || kind < 0 || kind > 5) throw new Error(`not an OTLP span: name ${name}, kind ${kind}`);
        spans.push({
          encoding: 'application/x-protobuf',
          service: resource['service.name'] as string,
          resource,
          traceId,
          spanId,
          parentSpanId,
          name,
          kind,
          attributes: protoAttributesOf(all(span, 9)),
        });
      }
    }
  }
  return spans;
}

/** An OTLP/HTTP traces receiver. */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly problems: string[] = [];
  private server: Server | undefined;
  endpoint = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          if (request.method !== 'POST' || request.url !== '/v1/traces') throw new Error(`${request.method} ${request.url} is not the traces endpoint`);
          const body = Buffer.concat(chunks);
          const contentType = request.headers['content-type'] ?? '';
          if (contentType.startsWith('application/x-protobuf')) {
            this.spans.push(...decodeProtobufExportRequest(body));
            // An empty ExportTraceServiceResponse: full success.
            response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
          } else if (contentType.startsWith('application/json')) {
            this.spans.push(...decodeExportRequest(body.toString('utf8')));
            response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
          } else throw new Error(`unexpected content-type ${contentType}`);
        } catch (error) {
          this.problems.push((error as Error).message);
          response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 3, message: (error as Error).message }));
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server!.address() as { port: number }).port}/v1/traces`;
  }

  of(service: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.service === service);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A compensator that records the headers of each call. */
async function startCompensator(): Promise<{ url: string; calls: IncomingHttpHeaders[]; stop: () => Promise<void> }> {
  const calls: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    calls.push(request.headers);
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"cancelled":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('OTLP export from the API process (an OTLP/HTTP receiver in the test)', () => {
  const receiver = new OtlpReceiver();
  const dataDirs: string[] = [];
  const servers: ServerProcess[] = [];

  async function startApi(env: Record<string, string>): Promise<Http> {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-otlp-'));
    dataDirs.push(dataDir);
    const adminKey = `otlp-${randomBytes(12).toString('hex')}`;
    const server = await startServerProcess({
      REWIND_DATA_DIR: dataDir,
      REWIND_ADMIN_KEY: adminKey,
      REWIND_MEMORY: 'off',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env,
    });
    servers.push(server);
    return httpClient(server.baseUrl, adminKey);
  }

  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await receiver.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  describe('sampled (the default sampler)', () => {
    const service = 'rewind-api-otlp-e2e';
    let http: Http;
    beforeAll(async () => {
      http = await startApi({ OTEL_SERVICE_NAME: service, OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=e2e,service.namespace=rewind-tests' });
    }, 30_000);

    it('receives spans under the configured service name and resource, named after the route, and none for probes and /metrics', async () => {
      expect((await http('POST', '/v1/sessions', { sessionId: 'otlp' })).status).toBe(201);
      const message = await http('POST', '/v1/sessions/otlp/messages', { role: 'user', content: 'hi' });
      expect(message.status).toBe(201);
      await http('GET', '/metrics');
      await http('GET', '/health/live');

      const route = await until('the message route span', () =>
        receiver.of(service).find((s) => s.kind === SERVER && s.name === 'POST /v1/sessions/:id/messages'),
      );
      expect(receiver.problems).toEqual([]);
      // No OTEL_EXPORTER_OTLP_PROTOCOL: the specification's default, http/protobuf.
      expect(new Set(receiver.of(service).map((s) => s.encoding))).toEqual(new Set(['application/x-protobuf']));
      expect(route.attributes['http.route']).toBe('/v1/sessions/:id/messages');
      expect(route.resource).toMatchObject({
        'service.name': service,
        'deployment.environment.name': 'e2e',
        'service.namespace': 'rewind-tests',
        'telemetry.sdk.name': 'opentelemetry',
        'telemetry.sdk.language': 'nodejs',
        'telemetry.sdk.version': expect.stringMatching(/^\d+\.\d+\.\d+/),
      });
      // The process's default name is overridden: nothing arrives as rewind-api.
      expect(receiver.spans.filter((s) => s.service === 'rewind-api')).toEqual([]);

      // The command and its append carry the command's type, the stream and the event count.
      const command = await until('the command span', () =>
        receiver.of(service).find((s) => s.name === 'rewind.command' && s.traceId === route.traceId && s.parentSpanId === route.spanId),
      );
      expect(command.attributes).toMatchObject({
        'rewind.command.type': 'RecordMessage',
        'rewind.stream_id': 'session:default:otlp',
        'rewind.session_id': 'otlp',
        'rewind.event_count': message.body.events.length,
      });
      const append = await until('the append span', () =>
        receiver.of(service).find((s) => s.name === 'rewind.event-store.append' && s.parentSpanId === command.spanId),
      );
      expect(append.attributes).toMatchObject({ 'rewind.stream_id': 'session:default:otlp', 'rewind.event_count': message.body.events.length });

      // The write's trace is kept with its events (for the relay's publish to continue it).
      const events = await http('GET', '/v1/sessions/otlp/events');
      const recorded = events.body.events.find((e: { streamVersion: number }) => e.streamVersion === message.body.version);
      expect(recorded.metadata.traceparent).toBe(`00-${command.traceId}-${command.spanId}-01`);

      // Give the probes' spans, had there been any, time to arrive.
      await new Promise((r) => setTimeout(r, 500));
      const servers = receiver.of(service).filter((s) => s.kind === SERVER);
      expect(servers.filter((s) => /metrics|health/.test(`${s.name} ${String(s.attributes['url.path'] ?? s.attributes['http.target'] ?? '')}`))).toEqual([]);
      expect(servers.map((s) => s.name)).toEqual(expect.arrayContaining(['POST /v1/sessions', 'POST /v1/sessions/:id/messages']));
    });

    it('makes exactly one client span per compensation call (the HTTP instrumentation adds none), which the compensator continues', async () => {
      const compensator = await startCompensator();
      try {
        const tool = await http('PUT', '/v1/tools/book_room', {
          kind: 'reversible',
          compensation: { channel: 'http', target: `${compensator.url}/rooms/{{output.bookingId}}/cancel` },
          retry: { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 5, timeoutMs: 5000 },
        });
        expect(tool.status).toBe(200);
        expect((await http('POST', '/v1/sessions', { sessionId: 'otlp-rollback' })).status).toBe(201);
        expect((await http('POST', '/v1/sessions/otlp-rollback/tool-calls', { toolCallId: 'r1', tool: 'book_room', input: {} })).status).toBe(201);
        expect((await http('POST', '/v1/sessions/otlp-rollback/tool-calls/r1/succeed', { output: { bookingId: 'B7' } })).status).toBe(200);
        const rollback = await http('POST', '/v1/sessions/otlp-rollback/rollback', { toVersion: 1, waitMs: 10_000 });
        expect(rollback.body.rollback.status).toBe('completed');
        expect(compensator.calls).toHaveLength(1);

        const compensation = await until('the compensation span', () =>
          receiver.of(service).find((s) => s.name === 'rewind.saga.compensation' && s.attributes['rewind.tool_call_id'] === 'r1'),
        );
        const client = await until('the compensation call span', () =>
          receiver.of(service).find((s) => s.kind === CLIENT && s.parentSpanId === compensation.spanId),
        );
        await new Promise((r) => setTimeout(r, 500));
        const spans = receiver.of(service);
        expect(spans.filter((s) => s.kind === CLIENT && s.parentSpanId === compensation.spanId)).toHaveLength(1);
        expect(spans.filter((s) => s.parentSpanId === client.spanId)).toEqual([]);
        expect(client.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
        expect(compensator.calls[0]!.traceparent).toBe(`00-${client.traceId}-${client.spanId}-01`);
      } finally {
        await compensator.stop();
      }
    });
  });

  it.each([
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json', 'application/json'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'http/protobuf', 'application/x-protobuf'],
  ])(
    'honours %s=%s (sent as %s), with the same spans and resource',
    async (variable, protocol, encoding) => {
      const service = `rewind-api-otlp-${protocol.replace('/', '-')}`;
      // The traces-specific variable wins over the general one.
      const env: Record<string, string> =
        variable === 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' ? { [variable]: protocol, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' } : { [variable]: protocol };
      const http = await startApi({ OTEL_SERVICE_NAME: service, ...env });
      expect((await http('POST', '/v1/sessions', { sessionId: 'encoded' })).status).toBe(201);
      const route = await until('the start route span', () => receiver.of(service).find((s) => s.kind === SERVER && s.name === 'POST /v1/sessions'));
      await until('the command span', () => receiver.of(service).find((s) => s.name === 'rewind.command' && s.parentSpanId === route.spanId));
      expect(receiver.problems).toEqual([]);
      expect(new Set(receiver.of(service).map((s) => s.encoding))).toEqual(new Set([encoding]));
      expect(route.resource).toMatchObject({ 'service.name': service, 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.name': 'opentelemetry' });
    },
    30_000,
  );

  it('exports nothing with OTEL_TRACES_SAMPLER=always_off, and keeps no traceparent with the events', async () => {
    const service = 'rewind-api-otlp-unsampled';
    const http = await startApi({ OTEL_SERVICE_NAME: service, OTEL_TRACES_SAMPLER: 'always_off' });
    expect((await http('POST', '/v1/sessions', { sessionId: 'dark' })).status).toBe(201);
    expect((await http('POST', '/v1/sessions/dark/messages', { role: 'user', content: 'hi' })).status).toBe(201);
    const events = await http('GET', '/v1/sessions/dark/events');
    expect(events.body.events.length).toBeGreaterThan(0);
    for (const event of events.body.events) expect(event.metadata).not.toHaveProperty('traceparent');
    // Ten times the export delay the sampled process's spans arrived within.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.of(service)).toEqual([]);
    expect(receiver.problems).toEqual([]);
  }, 30_000);
});
