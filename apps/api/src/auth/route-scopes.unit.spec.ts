import { describe, expect, it } from 'vitest';
import { requiredScopeOf } from './route-scopes';

describe('requiredScopeOf', () => {
  it.each([
    ['GET', '/v1/sessions/:id', 'read'],
    ['HEAD', '/v1/sessions', 'read'],
    ['POST', '/v1/sessions/:id/messages', 'write'],
    ['DELETE', '/v1/sessions/:id/memory/:key', 'write'],
    ['POST', '/v1/sessions/:id/recall', 'read'],
    ['GET', '/v1/audit', 'audit'],
    ['GET', '/v1/audit/chains', 'audit'],
    ['GET', '/v1/projections', 'admin'],
    ['GET', '/v1/keys', 'admin'],
    ['POST', '/v1/keys/:keyId/revoke', 'admin'],
    ['PUT', '/v1/tools/:name', 'write'],
    ['GET', undefined, 'read'],
    ['PATCH', undefined, 'write'],
  ] as const)('%s %s needs %s', (method, pattern, scope) => {
    expect(requiredScopeOf(method, pattern)).toBe(scope);
  });
});
