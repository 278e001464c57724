import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ERROR_STATUSES, OPERATIONS, type OperationDoc, type ResponseHeader } from './operations';
import { orNull, ref, RESPONSE_SCHEMAS, type JsonSchema } from './response-schemas';

const HEADERS: Record<ResponseHeader, JsonSchema> = {
  ETag: {
    description: 'The stream version after the request, quoted ("12"): send it back as If-Match to write only if nothing changed since.',
    schema: { type: 'string', example: '"12"' },
  },
  Location: { description: 'Where to follow the resource (a session, or a rollback in progress).', schema: { type: 'string', example: '/v1/rollbacks/7f9c…' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0, example: 1 } },
};

const WRITE_PARAMETERS: Record<string, JsonSchema> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'One key per logical write, reused on its retries: a retry answers the first result (duplicate: true) and writes nothing again.',
    schema: { type: 'string', minLength: 1, maxLength: 255, example: '3f1c2a9e-msg-1' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'Write only if the stream is at this version (an ETag, quoted or not); else 409 version_conflict naming the current one.',
    schema: { type: 'string', pattern: '^\\s*(W/)?"?\\d{1,15}"?\\s*$', example: '"12"' },
  },
  CorrelationId: {
    name: 'X-Correlation-Id',
    in: 'header',
    required: false,
    description: "Recorded as every event's correlationId (at most 128 characters); defaults to the command id.",
    schema: { type: 'string', maxLength: 128 },
  },
};

/** The groups operations are listed under, in this order (each controller names its own). */
const TAGS: { name: string; description: string }[] = [
  { name: 'sessions', description: 'Start sessions and read them: state at any version, timeline, events, diff, LLM context.' },
  { name: 'steps', description: 'Record what happens in a session: messages, tool calls and results, memory, context variables, tasks, checkpoints.' },
  { name: 'time travel', description: 'Change the present: rollback, undo, redo (with dry runs).' },
  { name: 'rollbacks', description: 'Follow a rollback saga; retry or resolve a failed compensation.' },
  { name: 'tools', description: "Register tools' effect kinds, compensations and retry policies." },
  { name: 'components', description: "Save and read components' state as steps of a session." },
  { name: 'memory', description: 'Long-term memory: recall, policies, indexing status.' },
  { name: 'queries', description: 'Read models across sessions: session list, audit log, tool-call ledger, projections, hash chains.' },
  { name: 'live', description: 'Server-sent events: a change per commit, for one session or for the tenant (the UI follows them).' },
  { name: 'keys', description: 'API keys of a tenant (admin).' },
  { name: 'signing keys', description: 'Keys that sign Kafka command envelopes (deployment operator).' },
  { name: 'encryption', description: 'Field encryption policies and crypto-shredding.' },
  { name: 'health', description: 'Probes and metrics (no API key).' },
];

const API_KEY_DESCRIPTION =
  'An API key, sent as "Authorization: Bearer rwd_…". Keys are opaque strings (not JWTs): the admin key is printed on first start; `rewind keys create --tenant <t>` makes more.';

/** The OpenAPI 3.1 document: generated from the controllers and DTOs, completed with the answers each operation gives. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const generated = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setOpenAPIVersion('3.1.0')
      .setTitle('Rewind')
      .setDescription(
        'Event-sourced agent sessions with time travel and undo. Every refusal is `{error: {code, message, details[]}}` and persists nothing. ' +
          'Writes take Idempotency-Key (same key, same answer, no second event) and If-Match (the ETag of the version you read).',
      )
      .setVersion('0.1.0')
      .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
      .addServer('/', 'This server')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: API_KEY_DESCRIPTION }, 'bearer')
      .build(),
  );
  return completeDocument(generated);
}

/** Adds what the decorators cannot say: every answer and its schema, headers, OpenAPI 3.1 types. */
export function completeDocument(generated: OpenAPIObject): OpenAPIObject {
  const document = toOpenApi31(structuredClone(generated)) as OpenAPIObject & { components: Record<string, Record<string, unknown>> };
  document.components.schemas = { ...nameStepUnion(document.components.schemas as Record<string, JsonSchema>), ...RESPONSE_SCHEMAS } as never;
  const used = new Set(
    Object.values(document.paths).flatMap((item) => Object.values(item as Record<string, { tags?: string[] }>).flatMap((op) => op.tags ?? [])),
  );
  document.tags = TAGS.filter((tag) => used.has(tag.name));
  document.components.securitySchemes = { bearer: { type: 'http', scheme: 'bearer', description: API_KEY_DESCRIPTION } };
  document.components.headers = HEADERS as never;
  document.components.parameters = WRITE_PARAMETERS as never;
  document.components.responses = Object.fromEntries(
    Object.entries(ERROR_STATUSES).map(([status, description]) => [
      `Error${status}`,
      {
        description,
        ...(status === '503' || status === '429' ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } } : {}),
        content: { 'application/json': { schema: ref('ErrorResponse') } },
      },
    ]),
  ) as never;
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, Record<string, unknown>>)) {
      const id = operation.operationId as string | undefined;
      const doc = id ? OPERATIONS[id] : undefined;
      // An operation not described yet keeps what its decorators say (a test lists it).
      if (doc) describeOperation(operation, doc);
    }
  }
  markInt64(document);
  return document;
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * `format: int64` on every integer the contract does not bound within 32 bits (versions,
 * positions, counts, sizes, milliseconds): generators map a bare `integer` to a 32-bit type
 * (Java's Integer), which a global position or a count can outgrow. Bounded ones (limits,
 * retry delays) stay plain.
 */
function markInt64(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(markInt64);
  const schema = node as Record<string, unknown>;
  const integer = schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
  const bounded = typeof schema.maximum === 'number' && schema.maximum <= INT32_MAX && (typeof schema.minimum !== 'number' || schema.minimum >= -INT32_MAX - 1);
  if (integer && schema.format === undefined && !bounded) schema.format = 'int64';
  for (const [key, child] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') markInt64(child);
}

/** The batch's item union under a name of its own (`Step`), so generated clients name its type after it. */
function nameStepUnion(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const batch = schemas.RecordStepsDto as { properties: { steps: { items: JsonSchema } } } | undefined;
  if (!batch) return schemas;
  const { items } = batch.properties.steps;
  batch.properties.steps.items = ref('Step');
  return { ...schemas, Step: { description: 'One step of a batch, by `kind`: the body of the matching single-step route.', ...items } };
}

function describeOperation(operation: Record<string, unknown>, doc: OperationDoc): void {
  // A description the decorator gives wins (it sits next to the code it describes).
  operation.description ??= doc.description;
  const generated = operation.responses as Record<string, unknown>;
  const defaultStatus = Object.keys(generated).find((status) => status.startsWith('2')) ?? '200';
  const responses: Record<string, unknown> = {};
  for (const success of doc.success) {
    const status = String(success.status ?? defaultStatus);
    responses[status] = {
      description: success.description,
      ...(success.headers ? { headers: Object.fromEntries(success.headers.map((h) => [h, { $ref: `#/components/headers/${h}` }])) } : {}),
      content:
        success.schema === 'text'
          ? { 'text/plain': { schema: { type: 'string' } } }
          : success.schema === 'event-stream'
            ? { 'text/event-stream': { schema: { type: 'string' } } }
            : { 'application/json': { schema: success.schema } },
    };
  }
  // Every authenticated operation may refuse a key without the route's scope (403) or over its rate (429).
  const authenticated = doc.errors.includes(401);
  const errors = authenticated ? [...new Set([...doc.errors, 403, 429])].sort((a, b) => a - b) : doc.errors;
  for (const status of errors) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  operation.responses = responses;
  if (doc.parameters) operation.parameters = [...((operation.parameters as unknown[] | undefined) ?? []), ...doc.parameters];
  if (doc.write) {
    const parameters = (operation.parameters as unknown[] | undefined) ?? [];
    operation.parameters = [...parameters, ...Object.keys(WRITE_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` }))];
  }
  // Public operations (health, metrics) take no key.
  if (!operation.security) operation.security = [];
}

/**
 * OpenAPI 3.1 is JSON Schema 2020-12: `nullable` becomes a "null" type, and a property Nest
 * can only call `object` (a TypeScript union such as JsonValue) becomes any JSON.
 */
function toOpenApi31(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApi31);
  if (node === null || typeof node !== 'object') return node;
  const input = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) out[key] = key === 'example' || key === 'examples' ? value : toOpenApi31(value);
  if (out.properties && typeof out.properties === 'object') {
    for (const [name, property] of Object.entries(out.properties as Record<string, Record<string, unknown>>)) {
      if (property.type === 'object' && !property.properties && property.additionalProperties === undefined) {
        const { type: _object, ...rest } = property;
        (out.properties as Record<string, unknown>)[name] = { ...rest, $ref: '#/components/schemas/JsonValue' };
      }
    }
  }
  // 3.0 needed `allOf: [ref]` to describe a reference; 3.1 allows siblings next to `$ref`.
  if (Array.isArray(out.allOf) && out.allOf.length === 1) {
    const { allOf, ...rest } = out;
    return toOpenApi31({ ...rest, ...(allOf[0] as Record<string, unknown>) });
  }
  // A nullable reference written as `{$ref, type: [object, null]}` would still require the
  // referenced object (sibling keywords all apply): say "this or null" instead.
  if (typeof out.$ref === 'string' && Array.isArray(out.type) && out.type.includes('null')) {
    const { $ref, type: _nullable, description, ...rest } = out;
    return { ...(description ? { description } : {}), ...rest, anyOf: [{ $ref }, { type: 'null' }] };
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string' && out.$ref === undefined) return orNull(out);
    const { description, type: _object, ...schema } = out;
    return { ...(description ? { description } : {}), ...orNull(schema) };
  }
  return out;
}
