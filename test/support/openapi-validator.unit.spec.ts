import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpenApiResponseValidator } from './openapi-validator';

/** A document of one operation whose answer nests a declared object, a free-form map and a union. */
const DOCUMENT = {
  paths: {
    '/v1/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          inner: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
          memory: { type: 'object', additionalProperties: true },
          item: { oneOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }] },
        },
        required: ['id', 'inner', 'memory', 'item'],
      },
      A: { type: 'object', properties: { kind: { type: 'string', enum: ['a'] }, a: { type: 'string' } }, required: ['kind', 'a'] },
      B: { type: 'object', properties: { kind: { type: 'string', enum: ['b'] }, b: { type: 'integer' } }, required: ['kind', 'b'] },
    },
  },
};

const check = (validator: OpenApiResponseValidator, body: unknown) => validator.check('GET', '/v1/things/t1', 200, 'application/json', body);
const declared = { id: 't1', inner: { n: 1 }, memory: { anything: { goes: [1] } }, item: { kind: 'a', a: 'x' } };

describe('OpenApiResponseValidator, refusing undeclared properties (what strict generated clients need)', () => {
  const strict = new OpenApiResponseValidator(DOCUMENT, { refuseUndeclared: true });
  const lenient = new OpenApiResponseValidator(DOCUMENT);

  it('passes an answer that holds only declared properties, free-form maps included', () => {
    expect(check(strict, declared)).toBeNull();
    expect(check(strict, { ...declared, item: { kind: 'b', b: 2 } })).toBeNull();
  });

  it('refuses a property the document does not declare, at any depth and in any union member; the lenient check lets it through', () => {
    const where = fc.constantFrom<(name: string) => unknown>(
      (name) => ({ ...declared, [name]: 1 }),
      (name) => ({ ...declared, inner: { n: 1, [name]: 1 } }),
      (name) => ({ ...declared, item: { kind: 'a', a: 'x', [name]: 1 } }),
    );
    const undeclared = fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !['id', 'inner', 'memory', 'item', 'n', 'kind', 'a', 'b'].includes(name));
    fc.assert(
      fc.property(where, undeclared, (answer, name) => {
        const body = answer(name);
        expect(check(strict, body)).toMatch(/getThing\) 200: the body does not match/);
        expect(check(lenient, body)).toBeNull();
      }),
    );
  });

  it('leaves the document it was given as it was (the lenient checks share it)', () => {
    expect(DOCUMENT.components.schemas.Thing).not.toHaveProperty('additionalProperties');
    expect(check(new OpenApiResponseValidator(DOCUMENT), { ...declared, extra: 1 })).toBeNull();
  });
});
