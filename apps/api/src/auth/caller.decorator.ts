import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Caller } from '@rewind/engine';
import type { AuthenticatedKey } from '@rewind/tenancy';

export const IS_PUBLIC = 'rewind:isPublic';
/** A route that needs no API key (health, docs). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The authenticated caller (tenant and actor), set by ApiKeyGuard. */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => ctx.switchToHttp().getRequest().caller);

/** The key the caller authenticated with (its scopes decide, e.g., whether it may act for other tenants). */
export const CurrentApiKey = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthenticatedKey => ctx.switchToHttp().getRequest().apiKey);
