import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiResponseValidator } from '../../../../test/support/openapi-validator';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

type Json = Record<string, any>;
const committedPath = join(__dirname, '../../../../docs/openapi.json');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('the OpenAPI document', () => {
  let t: TestApp;
  let served: Json;
  const operations = () =>
    Object.entries(served.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({ path, method, operation: operation as Json })),
    );
  const resolve = (node: Json): Json =>
    typeof node.$ref === 'string'
      ? (node.$ref as string)
          .slice(2)
          .split('/')
          .reduce<Json>((n, k) => n[k], served)
      : node;

  beforeAll(async () => {
    t = await startTestApp();
    served = (await t.http('GET', '/docs/openapi.json')).body;
  });
  afterAll(() => t.close());

  it('is committed as docs/openapi.json exactly as the app serves it (run `npm run openapi` after changing the API)', () => {
    expect(JSON.parse(readFileSync(committedPath, 'utf8'))).toEqual(served);
  });

  it.each(['/docs', '/docs/'])('serves the docs page at %s with every asset it links (relative URLs resolve either way)', async (page) => {
    const html = await (await fetch(t.baseUrl + page)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\.[^"]+)"/g)].map((m) => new URL(m[1]!, t.baseUrl + page).pathname);
    expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-init.js']));
    const statuses = await Promise.all(assets.map(async (asset) => `${asset} ${(await fetch(t.baseUrl + asset)).status}`));
    expect(statuses).toEqual(assets.map((asset) => `${asset} 200`));
  });

  it('is OpenAPI 3.1 with opaque API keys as bearer tokens (no JWT format) and no 3.0-only nullable', () => {
    expect(served.openapi).toBe('3.1.0');
    expect(served.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer', description: expect.stringContaining('rwd_') });
    expect(JSON.stringify(served)).not.toMatch(/"nullable"|"bearerFormat"/);
    // A `$ref` beside a `type` would require both: "a reference or null" must be an anyOf.
    const refsWithType: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      if ('$ref' in node && 'type' in node) refsWithType.push(at);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    };
    walk(served, '#');
    expect(refsWithType).toEqual([]);
  });

  it('names every operation for a generated client and documents its success, its refusals and its headers', () => {
    const ids = operations().map(({ operation }) => operation.operationId as string);
    expect(ids.length).toBeGreaterThanOrEqual(34);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !/^[a-z][A-Za-z]+$/.test(id))).toEqual([]);
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(operation.responses);
      const successes = statuses.filter((s) => s.startsWith('2'));
      expect(successes, where).not.toEqual([]);
      for (const status of successes) expect(Object.keys(operation.responses[status].content ?? {}), `${where} ${status}`).not.toEqual([]);
      for (const status of statuses.filter((s) => /^[45]/.test(s))) {
        expect(resolve(operation.responses[status]).content['application/json'].schema, `${where} ${status}`).toEqual({
          $ref: '#/components/schemas/ErrorResponse',
        });
      }
      if (path.startsWith('/v1/')) {
        const takesInput = (operation.parameters ?? []).length > 0 || operation.requestBody !== undefined;
        expect(statuses, where).toEqual(expect.arrayContaining(takesInput ? ['400', '401'] : ['401']));
        expect(operation.security, where).toEqual([{ bearer: [] }]);
      }
      // Recall is a read sent as POST; memory and encryption policies and keys are settings, not session events.
      const settings = ['recallMemory', 'setSessionMemoryPolicy', 'setTenantMemoryPolicy', 'setToolEncryption', 'setMemoryKeyEncryption', 'shredSession'];
      if (
        method !== 'get' &&
        !settings.includes(operation.operationId) &&
        !operation.operationId.endsWith('ApiKey') &&
        !operation.operationId.endsWith('SigningKey') &&
        operation.operationId !== 'setApiKeyExpiry'
      ) {
        const headers = (operation.parameters as Json[])
          .map((p) => resolve(p))
          .filter((p) => p.in === 'header')
          .map((p) => p.name);
        expect(headers, where).toEqual(expect.arrayContaining(['Idempotency-Key', 'If-Match']));
      }
    }
    const responseHeaders = (id: string, status: string) => {
      const found = operations().find(({ operation }) => operation.operationId === id)!;
      return Object.keys(found.operation.responses[status].headers ?? {});
    };
    expect(responseHeaders('startSession', '201')).toEqual(expect.arrayContaining(['Location', 'ETag']));
    expect(responseHeaders('recordMessage', '201')).toEqual(['ETag']);
    expect(responseHeaders('rollback', '202')).toEqual(expect.arrayContaining(['Location', 'ETag']));
    expect(Object.keys(resolve({ $ref: '#/components/responses/Error503' }).headers)).toEqual(['Retry-After']);
    expect(Object.keys(operations().find(({ operation }) => operation.operationId === 'startToolCall')!.operation.responses)).toContain('428');
  });

  it('types JSON values as any JSON, so a string, a number or null is as valid as an object', () => {
    const schemas = served.components.schemas as Json;
    expect(schemas.ValueDto.properties.value.$ref).toBe('#/components/schemas/JsonValue');
    expect(schemas.SucceedToolCallDto.properties.output.$ref).toBe('#/components/schemas/JsonValue');
    expect(schemas.StartToolCallDto.properties.input.$ref).toBe('#/components/schemas/JsonValue');
    expect(schemas.JsonValue.type).toBeUndefined();
  });

  it('reads the same in generated clients: tagged unions with mappings, integers, typed answers, const with a type, tags and descriptions', () => {
    const schemas = served.components.schemas as Json;
    const unions: string[] = [];
    const numbers: string[] = [];
    const untypedConst: string[] = [];
    const int32: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Json;
      if (Array.isArray(schema.oneOf)) {
        unions.push(at);
        // Every member is named by the discriminator's mapping: no generator guesses by required fields.
        expect(Object.values(schema.discriminator?.mapping ?? {}).sort(), at).toEqual(schema.oneOf.map((m: Json) => m.$ref).sort());
        for (const [value, member] of Object.entries(schema.discriminator.mapping as Record<string, string>)) {
          const property = resolve({ $ref: member }).properties[schema.discriminator.propertyName];
          expect(property, `${at} ${value}`).toEqual({ type: 'string', enum: [value] });
          expect(resolve({ $ref: member }).required, `${at} ${value}`).toContain(schema.discriminator.propertyName);
        }
      }
      if (schema.type === 'number' || (Array.isArray(schema.type) && schema.type.includes('number'))) numbers.push(at);
      if ('const' in schema && !('type' in schema)) untypedConst.push(at);
      if ((schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'))) && schema.format !== 'int64') {
        // A plain integer is 32 bits in Java clients: only a bound within 32 bits makes it safe.
        expect(schema.maximum, `${at}: an integer without format int64`).toBeLessThanOrEqual(2 ** 31 - 1);
        int32.push(at);
      }
      for (const [key, child] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') walk(child, `${at}/${key}`);
    };
    walk(served, '#');
    expect(int32.length).toBeGreaterThan(0);
    for (const int64 of [schemas.Event.properties.globalPosition, schemas.Event.properties.streamVersion, schemas.WriteResult.properties.version]) {
      expect(int64).toMatchObject({ type: 'integer', format: 'int64' });
    }
    expect(unions).toEqual(expect.arrayContaining(['#/components/schemas/Step', '#/components/schemas/ContextItem', '#/components/schemas/HeadMoveAnswer']));
    // Versions, counts, limits and durations are whole numbers; only a relevance score is not.
    expect(numbers).toEqual(['#/components/schemas/RecallHit/properties/score']);
    expect(untypedConst).toEqual([]);
    expect(Object.keys(schemas)).not.toContain('Error');
    expect(schemas.ErrorResponse.properties.error.properties.code.enum).toEqual(
      expect.arrayContaining(['validation_failed', 'session_not_found', 'version_conflict']),
    );
    const tags = (served.tags as Json[]).map((t) => t.name);
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.summary, where).toEqual(expect.any(String));
      expect(operation.description, where).toEqual(expect.any(String));
      expect(operation.tags?.length, where).toBe(1);
      expect(tags, where).toContain(operation.tags[0]);
      for (const status of Object.keys(operation.responses).filter((s) => s.startsWith('2'))) {
        const schema = operation.responses[status].content['application/json']?.schema;
        if (schema) expect(schema.$ref, `${where} ${status}: a named schema`).toMatch(/^#\/components\/schemas\//);
      }
    }
    for (const parameter of ['at', 'from', 'to', 'limit', 'maxTurns', 'maxChars']) {
      // (The audit log's from and to are instants.)
      const declared = operations()
        .filter(({ path }) => path.startsWith('/v1/sessions'))
        .flatMap(({ operation }) => (operation.parameters ?? []).filter((p: Json) => p.name === parameter));
      expect(declared.length, parameter).toBeGreaterThan(0);
      for (const p of declared) expect(p.schema.type, parameter).toBe('integer');
    }
  });

  it('fails a response that does not match it: an undocumented status, a wrong body', () => {
    const validator = new OpenApiResponseValidator(served);
    const write = { sessionId: 's', version: 2, head: 2, stepVersion: 2, status: 'active', duplicate: false, events: [] };
    expect(validator.check('POST', '/v1/sessions/s/messages', 201, 'application/json', write)).toBeNull();
    expect(validator.check('POST', '/v1/sessions/s/messages', 201, 'application/json', { ...write, head: 'two' })).toMatch(/\/head must be integer/);
    expect(validator.check('POST', '/v1/sessions/s/messages', 500, 'application/json', {})).toMatch(/does not list/);
    expect(validator.check('GET', '/v1/sessions/s', 404, 'application/json', { message: 'nope' })).toMatch(/must have required property 'error'/);
    expect(validator.check('DELETE', '/v1/sessions/s/tasks/top', 200, 'application/json', write)).toBeNull();
    expect(validator.check('GET', '/docs', 200, 'text/html', '<html>')).toBeNull();
  });
});
