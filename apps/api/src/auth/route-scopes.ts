import { SetMetadata } from '@nestjs/common';
import type { ApiKeyScope } from '@rewind/tenancy';

export const REQUIRED_SCOPE = 'rewind:requiredScope';
/** The scope a route needs when the default for its method and path is wrong (e.g. a POST that only reads). */
export const RequiresScope = (scope: ApiKeyScope) => SetMetadata(REQUIRED_SCOPE, scope);

/**
 * Routes whose scope is not the one their method implies. Kept here, in one table, so that
 * the access policy can be read (and reviewed) in one place. Patterns are Fastify's.
 */
const EXCEPTIONS: [method: string | '*', pattern: RegExp, scope: ApiKeyScope][] = [
  // A tenant's admin manages its own keys (keys/key-authority.ts keeps it to its tenant);
  // figures across tenants (global log positions) are the deployment operator's.
  ['*', /^\/v1\/keys(\/|$)/, 'admin'],
  ['*', /^\/v1\/signing-keys(\/|$)/, 'operator'],
  ['*', /^\/v1\/admin(\/|$)/, 'operator'],
  ['GET', /^\/v1\/projections$/, 'operator'],
  // Which fields are encrypted is a security decision.
  ['PUT', /^\/v1\/encryption\//, 'admin'],
  // Crypto-shredding destroys data for good.
  ['POST', /^\/v1\/sessions\/:[^/]+\/shred$/, 'admin'],
  // Who did what: the audit log.
  ['GET', /^\/v1\/audit(\/chains)?$/, 'audit'],
  // POSTs that only read.
  ['POST', /^\/v1\/sessions\/:[^/]+\/recall$/, 'read'],
];

/**
 * Each route's answer, worked out once: the guard asks on every request, and the table's patterns
 * cost ~1 % of the API's CPU under W4 (issue 40). Keys are route patterns (a finite set), never raw URLs.
 */
const scopeByRoute = new Map<string, ApiKeyScope>();

/** The scope a request needs: the table above, else `read` for GET/HEAD and `write` for the rest. */
export function requiredScopeOf(method: string, routePattern: string | undefined): ApiKeyScope {
  if (routePattern === undefined) return scopeOf(method, undefined);
  const key = `${method} ${routePattern}`;
  let scope = scopeByRoute.get(key);
  if (scope === undefined) scopeByRoute.set(key, (scope = scopeOf(method, routePattern)));
  return scope;
}

function scopeOf(method: string, routePattern: string | undefined): ApiKeyScope {
  const upper = method.toUpperCase();
  const exception = routePattern ? EXCEPTIONS.find(([m, p]) => (m === '*' || m === upper) && p.test(routePattern)) : undefined;
  if (exception) return exception[2];
  return upper === 'GET' || upper === 'HEAD' ? 'read' : 'write';
}
