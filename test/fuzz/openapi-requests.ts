import fc from 'fast-check';

/** The parts of an OpenAPI 3 document the generator reads. */
export interface OpenApiSchema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  example?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema & { oneOf?: OpenApiSchema[] };
  oneOf?: OpenApiSchema[];
  allOf?: OpenApiSchema[];
  additionalProperties?: unknown;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: OpenApiSchema;
}
interface Operation {
  parameters?: Parameter[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: { content?: { 'application/json'?: { schema?: OpenApiSchema } } };
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, OpenApiSchema> };
}

export interface FuzzRequest {
  method: string;
  /** The path template, for reporting. */
  route: string;
  url: string;
  headers: Record<string, string>;
  /** Raw JSON text (or not JSON at all), or absent. */
  payload?: string;
  /** Whether the request was built to be valid (it may still be refused, e.g. a missing session). */
  valid: boolean;
}

/** Ids that exist (sessions, calls, turns made by the suite's set-up), so valid requests reach the domain. */
export interface KnownIds {
  sessions: string[];
  toolCalls: string[];
  turns: string[];
  rollbacks: string[];
  tools: string[];
}

/** Stands for a deeply nested value inside a body; replaced in the JSON text (JSON.stringify would overflow). */
const DEEP = '\u2063deep:';

const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\ud83d\ude00',
  '',
  ' ',
  '%00',
  '%FF',
  '../../etc/passwd',
  "'; DROP TABLE events; --",
  '{{output.bookingId}}',
  '\u202e\u200b',
  'é'.repeat(300),
  'x'.repeat(5_000),
];
const HOSTILE_NUMBERS = [0, -1, -0.5, 1.5, 2 ** 31, 2 ** 53, 2 ** 64, 1e308, -1e308, Number.MIN_VALUE, 1e20];

/** Values of the wrong type or shape for any field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(null, true, false, [], {}, [null], { kind: null }),
  fc.integer({ min: 130, max: 20_000 }).map((levels) => `${DEEP}${levels}`),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Query and path text: numbers past every limit, not numbers at all, bad percent-encoding, NUL. */
const hostileText = fc.oneof(
  fc.constantFrom(
    '99999999999999999999',
    '1e308',
    '-1',
    '1.5',
    'abc',
    '0x10',
    '',
    '%00',
    '%FF',
    '%E0%A4%A',
    '%ED%A0%80',
    '%C0%AF',
    '%',
    '..',
    '%2F',
    '%20',
    'a%00b',
    '9'.repeat(400),
  ),
  fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent),
  fc.string({ maxLength: 300 }).map(encodeURIComponent),
);

/**
 * A valid path parameter as one URL segment. "." and ".." are dot-segments: every URL parser
 * removes them, percent-encoded too (`/v1/keys/./expiry` is `/v1/keys/expiry`), so no client can
 * send them as an id (ID_PATTERN refuses them as ids); they stay among the hostile values.
 */
function pathSegment(value: string): string {
  return /^\.{1,2}$/.test(value) ? `${value}_` : encodeURIComponent(value);
}

export function resolveSchema(doc: OpenApiDocument, schema: OpenApiSchema | undefined): OpenApiSchema {
  let current = schema ?? {};
  for (let i = 0; i < 10 && current.$ref; i++) current = doc.components.schemas[current.$ref.split('/').pop()!] ?? {};
  if (current.allOf?.length === 1) return resolveSchema(doc, current.allOf[0]);
  return current;
}

/** A value the schema allows (the server may still refuse it for domain reasons). */
export function validValue(doc: OpenApiDocument, raw: OpenApiSchema | undefined, name: string, ids: KnownIds, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveSchema(doc, raw);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.oneOf) return fc.oneof(...schema.oneOf.map((s) => validValue(doc, s, name, ids, depth + 1)));
  if (name === 'waitMs') return fc.integer({ min: 0, max: 20 }); // a valid wait still waits: keep the run short
  switch (schema.type) {
    case 'string': {
      const pool = idPool(name, ids);
      const text = fc.string({ minLength: Math.max(1, schema.minLength ?? 1), maxLength: Math.min(schema.maxLength ?? 40, 40) });
      const example = typeof schema.example === 'string' ? [fc.constant(schema.example)] : [];
      return pool ? fc.oneof(fc.constantFrom(...pool), ...example) : fc.oneof(...example, text);
    }
    case 'number':
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 50, 50) });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(doc, schema.items, name, ids, depth + 1), { minLength: 1, maxLength: 4 });
    case 'object':
      if (!schema.properties) return fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })));
      return objectOf(doc, schema, ids, depth);
    default:
      // Any JSON (the document does not say more): take the example when there is one.
      return schema.example !== undefined ? fc.oneof(fc.constant(schema.example), fc.jsonValue({ maxDepth: 3 })) : fc.jsonValue({ maxDepth: 3 });
  }
}

function objectOf(doc: OpenApiDocument, schema: OpenApiSchema, ids: KnownIds, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {}).filter(([name]) => depth < 4 || required.has(name));
  const shape = Object.fromEntries(entries.map(([name, s]) => [name, validValue(doc, s, name, ids, depth + 1)]));
  return fc.record(shape, { requiredKeys: [...required].filter((k) => k in shape) });
}

function idPool(name: string, ids: KnownIds): string[] | null {
  if (name === 'id' || name === 'sessionId') return ids.sessions;
  if (name === 'callId' || name === 'toolCallId') return ids.toolCalls;
  if (name === 'turnId') return ids.turns;
  if (name === 'rollbackId') return ids.rollbacks;
  if (name === 'key' || name === 'name') return ['city', 'hotel', 'locale', ...ids.tools];
  if (name === 'toCheckpoint') return ['start', 'no-such-label'];
  return null;
}

/** A valid body with one thing wrong: a field replaced, a required field gone, an unknown field, or the whole body. */
function mutated(body: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(body, fc.nat(), hostileValue, fc.integer({ min: 0, max: 3 })).map(([value, pick, hostile, how]) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return hostile;
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const key = keys[pick % Math.max(1, keys.length)];
    if (how === 0 && key) copy[key] = hostile;
    else if (how === 1 && key) delete copy[key];
    else if (how === 2) copy[`unknown${pick % 3}`] = hostile;
    else if (key && Array.isArray(copy[key]) && (copy[key] as unknown[]).length > 0) (copy[key] as unknown[])[pick % (copy[key] as unknown[]).length] = hostile;
    else return hostile;
    return copy;
  });
}

/** JSON text, with deep-nesting markers expanded into real nesting. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(new RegExp(`"${DEEP}(\\d+)"`, 'g'), (_, levels: string) => '['.repeat(Number(levels)) + ']'.repeat(Number(levels)));
}

const brokenBodies = fc.constantFrom(
  '{"role":',
  '{',
  '[',
  'null',
  '"text"',
  '12',
  '{"a":1}{"b":2}',
  '\u0000',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{}}}',
);

const oddHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  fc.constant({}),
  fc.record({ 'idempotency-key': fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('k-fixed', '', ' ', 'x'.repeat(256))) }, { requiredKeys: [] }),
  fc.record({ 'if-match': fc.oneof(fc.constantFrom('"1"', 'W/"2"', '*', '99999999999999999999', '"-1"', 'abc', ''), fc.nat().map(String)) }),
  fc.record({ 'content-type': fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/vnd.api+json', 'multipart/form-data', '') }),
  fc.record({ authorization: fc.constantFrom('', 'Bearer', 'Bearer rwd_nope', 'Basic abc', 'Bearer x'.repeat(500)) }),
  fc.record({
    'x-odd': fc.string({ minLength: 1, maxLength: 8_000 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'a')),
    accept: fc.constantFrom('text/html', '*/*', 'application/xml'),
  }),
);

/** Requests for every operation of the document: about a third valid, the rest hostile in one or more ways. */
export function requestsFrom(doc: OpenApiDocument, ids: KnownIds, authorization: string): fc.Arbitrary<FuzzRequest> {
  const operations = Object.entries(doc.paths)
    .flatMap(([route, methods]) => Object.entries(methods).map(([method, op]) => ({ route, method, op })))
    // Server-sent event streams never end, and an injected request's stand-in socket lacks what
    // Nest's SSE stream calls on it: apps/api/src/live/live.e2e.spec.ts covers them over real HTTP.
    .filter(({ op }) => !Object.values(op.responses ?? {}).some((response) => response.content && 'text/event-stream' in response.content));
  return fc.oneof(
    ...operations.map(({ route, method, op }) => {
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const queryParams = params.filter((p) => p.in === 'query');
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const validPath = fc.tuple(...pathParams.map((p) => (validValue(doc, p.schema, p.name, ids) as fc.Arbitrary<string>).map(pathSegment)));
      const anyPath = fc.tuple(
        ...pathParams.map((p) =>
          fc.oneof({ weight: 3, arbitrary: validValue(doc, p.schema, p.name, ids).map((v) => encodeURIComponent(String(v))) }, hostileText),
        ),
      );
      const validQuery = fc.record(
        Object.fromEntries(queryParams.map((p) => [p.name, validValue(doc, p.schema, p.name, ids).map((v) => encodeURIComponent(String(v)))])),
        {
          requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name),
        },
      );
      const anyQuery = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, hostileText])), { requiredKeys: [] });
      const validBody = bodySchema ? validValue(doc, bodySchema, 'body', ids) : fc.constant(undefined);
      const build = (
        valid: boolean,
        path: string[],
        query: Record<string, unknown>,
        payload: string | undefined,
        headers: Record<string, string>,
      ): FuzzRequest => {
        let i = 0;
        const concrete = route.replace(/\{[^}]+\}/g, () => path[i++] ?? 'x');
        const search = Object.entries(query)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join('&');
        return {
          method: method.toUpperCase(),
          route,
          url: search ? `${concrete}?${search}` : concrete,
          headers: { authorization, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
          ...(payload !== undefined ? { payload } : {}),
          valid,
        };
      };
      const valid = fc
        .tuple(validPath, validQuery, validBody)
        .map(([path, query, body]) => build(true, path, query, body === undefined ? undefined : toJsonText(body), {}));
      const hostile = fc
        .tuple(
          anyPath,
          fc.oneof(validQuery, anyQuery),
          fc.oneof(
            { weight: 4, arbitrary: (bodySchema ? mutated(validBody) : hostileValue).map((b) => toJsonText(b)) },
            { weight: 1, arbitrary: brokenBodies },
            { weight: 1, arbitrary: fc.constant(undefined) },
          ),
          oddHeaders,
        )
        .map(([path, query, payload, headers]) => build(false, path, query, payload, headers));
      return fc.oneof({ weight: 1, arbitrary: valid }, { weight: 2, arbitrary: hostile });
    }),
  );
}
