import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_KEY_SCOPES, grants } from '@rewind/tenancy';
import { requiredScopeOf } from './route-scopes';

const CASES = [
  ['GET', '/v1/sessions/:id', 'read'],
  ['HEAD', '/v1/sessions', 'read'],
  ['POST', '/v1/sessions/:id/messages', 'write'],
  ['DELETE', '/v1/sessions/:id/memory/:key', 'write'],
  ['POST', '/v1/sessions/:id/recall', 'read'],
  ['GET', '/v1/audit', 'audit'],
  ['GET', '/v1/audit/chains', 'audit'],
  ['GET', '/v1/projections', 'operator'],
  ['GET', '/v1/keys', 'admin'],
  ['POST', '/v1/keys/:keyId/revoke', 'admin'],
  ['PUT', '/v1/tools/:name', 'write'],
  ['GET', undefined, 'read'],
  ['PATCH', undefined, 'write'],
  ['post', '/v1/sessions/:id/recall', 'read'],
  ['delete', '/v1/keys/:keyId', 'admin'],
] as const;

describe('requiredScopeOf', () => {
  it.each(CASES)('%s %s needs %s', (method, pattern, scope) => {
    expect(requiredScopeOf(method, pattern)).toBe(scope);
  });

  it('answers each route the same however often and in whatever order routes are asked (answers are remembered per route)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...CASES), { maxLength: 40 }), (asked) => {
        for (const [method, pattern, scope] of asked) expect(requiredScopeOf(method, pattern)).toBe(scope);
      }),
    );
  });
});

describe('grants', () => {
  it('only an operator key grants what the operator may do; an operator key grants everything; admin everything else', () => {
    const scopes = fc.uniqueArray(fc.constantFrom(...API_KEY_SCOPES), { minLength: 1 });
    fc.assert(
      fc.property(scopes, fc.constantFrom(...API_KEY_SCOPES), (held, needed) => {
        if (held.includes('operator')) expect(grants(held, needed)).toBe(true);
        else if (needed === 'operator') expect(grants(held, needed)).toBe(false);
        else if (held.includes('admin')) expect(grants(held, needed)).toBe(true);
      }),
    );
  });
});
