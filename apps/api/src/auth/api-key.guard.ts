import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { RewindConfig } from '@rewind/config';
import { grants, TokenBuckets, type ApiKeyScope, type ApiKeyStore, type AuthenticatedKey } from '@rewind/tenancy';
import { ApiError } from '../common/api-error';
import { API_KEY_STORE, RATE_LIMITER, REWIND_CONFIG } from '../infrastructure/tokens';
import { IS_PUBLIC } from './caller.decorator';
import { REQUIRED_SCOPE, requiredScopeOf } from './route-scopes';

/**
 * Every route but the public ones needs `Authorization: Bearer <api key>`: the key decides
 * the tenant, its scopes decide what it may do, and its token bucket how often.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  /** Failed authentications per source address: guessing keys is throttled (REWIND_AUTH_FAILURES_*). */
  private readonly failures: TokenBuckets;

  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_STORE) private readonly keys: ApiKeyStore,
    @Inject(RATE_LIMITER) private readonly limiter: TokenBuckets,
    @Inject(REWIND_CONFIG) config: RewindConfig,
  ) {
    this.failures = new TokenBuckets({ perSecond: config.authFailures.perSecond, burst: config.authFailures.burst });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest();
    const header: string | undefined = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      throw new ApiError(
        401,
        'unauthorized',
        'Missing API key: send "Authorization: Bearer <api key>". The admin key is printed on first start; `rewind keys create --tenant <t>` makes more.',
      );
    }
    const key = await this.keys.authenticate(match[1]!);
    if (!key) {
      const verdict = this.failures.take(String(request.ip));
      if (!verdict.allowed) {
        throw new ApiError(
          429,
          'rate_limited',
          `Too many failed authentications from ${String(request.ip)}: retry after ${verdict.retryAfterSeconds} s (REWIND_AUTH_FAILURES_BURST, REWIND_AUTH_FAILURES_PER_SECOND).`,
          [],
          { 'retry-after': String(verdict.retryAfterSeconds) },
        );
      }
      throw new ApiError(
        401,
        'unauthorized',
        'This API key is not valid, revoked or expired: check it, or ask an admin for a new one (`rewind keys create --tenant <t>`).',
      );
    }
    const needed =
      this.reflector.getAllAndOverride<ApiKeyScope | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]) ??
      requiredScopeOf(request.method, request.routeOptions?.url);
    if (!grants(key.scopes, needed)) throw forbidden(key, needed);
    const verdict = this.limiter.take(key.keyId);
    if (!verdict.allowed) {
      throw new ApiError(
        429,
        'rate_limited',
        `Too many requests with API key ${key.keyId}: retry after ${verdict.retryAfterSeconds} s (the limit is set by REWIND_RATE_LIMIT_PER_SECOND and REWIND_RATE_LIMIT_BURST).`,
        [],
        { 'retry-after': String(verdict.retryAfterSeconds) },
      );
    }
    request.caller = { tenantId: key.tenantId, actor: `key:${key.keyId}` };
    request.apiKey = key;
    return true;
  }
}

function forbidden(key: AuthenticatedKey, needed: ApiKeyScope): ApiError {
  return new ApiError(
    403,
    'insufficient_scope',
    `API key ${key.keyId} has scope(s) ${key.scopes.join(', ')}; this request needs "${needed}". Use a key with that scope, or ask an admin to create one (\`rewind keys create --scopes ${needed}\`).`,
    [{ field: 'authorization', message: `needs scope "${needed}"` }],
  );
}
