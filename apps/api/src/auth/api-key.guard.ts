import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ApiKeyStore } from '@rewind/tenancy';
import { ApiError } from '../common/api-error';
import { API_KEY_STORE } from '../infrastructure/tokens';
import { IS_PUBLIC } from './caller.decorator';

/** Every route but the public ones needs `Authorization: Bearer <api key>`; the key decides the tenant. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_STORE) private readonly keys: ApiKeyStore,
  ) {}

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
    const record = await this.keys.authenticate(match[1]!);
    if (!record) throw new ApiError(401, 'unauthorized', 'This API key is not valid: check it, or create one with `rewind keys create --tenant <t>`.');
    request.caller = { tenantId: record.tenantId, actor: `key:${record.keyId}` };
    return true;
  }
}
