import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '@rewind/engine';
import { ApiKeyLifecycleError, DEFAULT_ROTATION_GRACE_SECONDS, type ApiKeyRecord, type AuthenticatedKey } from '@rewind/tenancy';
import { CurrentApiKey, CurrentCaller } from '../auth/caller.decorator';
import { ApiError } from '../common/api-error';
import { IdParamPipe } from '../sessions/path-params';
import { CreateApiKeyCommand } from './commands/create-api-key.command';
import { RevokeApiKeyCommand } from './commands/revoke-api-key.command';
import { RotateApiKeyCommand } from './commands/rotate-api-key.command';
import { SetApiKeyExpiryCommand } from './commands/set-api-key-expiry.command';
import { CreateApiKeyDto, ListApiKeysQueryDto, RotateApiKeyDto, SetApiKeyExpiryDto } from './dto/keys.dto';
import { ListApiKeysQuery } from './queries/list-api-keys.query';

const STATUS_OF: Record<ApiKeyLifecycleError['reason'], [number, string]> = {
  not_found: [404, 'api_key_not_found'],
  revoked: [409, 'api_key_revoked'],
  invalid: [400, 'validation_failed'],
};

/** Lifecycle refusals in the documented error shape. */
async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof ApiKeyLifecycleError)) throw error;
    const [status, code] = STATUS_OF[error.reason];
    throw new ApiError(status, code, error.message);
  }
}

/** API keys: create, list, rotate, revoke, expire. Needs an `admin` key, for its own tenant (`operator`: any tenant; key-authority.ts). */
@ApiTags('keys')
@ApiBearerAuth()
@Controller('v1/keys')
export class KeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @ApiOperation({ operationId: 'createApiKey', summary: 'Create an API key; the secret is in this answer only, never again' })
  create(
    @CurrentCaller() caller: Caller,
    @CurrentApiKey() by: AuthenticatedKey,
    @Body() body: CreateApiKeyDto,
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    return mapped(
      this.commands.execute(new CreateApiKeyCommand(body.tenantId ?? caller.tenantId, body.name, body.scopes ?? ['write', 'read'], body.expiresAt ?? null, by)),
    );
  }

  @Get()
  @ApiOperation({ operationId: 'listApiKeys', summary: 'List API keys (ids, scopes, lifecycle; never secrets)' })
  async list(@CurrentCaller() caller: Caller, @CurrentApiKey() by: AuthenticatedKey, @Query() query: ListApiKeysQueryDto): Promise<{ items: ApiKeyRecord[] }> {
    const tenantId = query.tenantId === '*' ? undefined : (query.tenantId ?? caller.tenantId);
    return { items: await this.queries.execute(new ListApiKeysQuery(by, tenantId)) };
  }

  @Post(':keyId/revoke')
  @HttpCode(200)
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke a key: every process refuses it within a second' })
  revoke(@CurrentApiKey() by: AuthenticatedKey, @Param('keyId', IdParamPipe) keyId: string): Promise<ApiKeyRecord> {
    return mapped(this.commands.execute(new RevokeApiKeyCommand(keyId, by)));
  }

  @Post(':keyId/rotate')
  @HttpCode(200)
  @ApiOperation({ operationId: 'rotateApiKey', summary: 'A new secret for the key (same id); the old one works for graceSeconds (default 24 h)' })
  rotate(
    @CurrentApiKey() by: AuthenticatedKey,
    @Param('keyId', IdParamPipe) keyId: string,
    @Body() body: RotateApiKeyDto = {},
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    return mapped(this.commands.execute(new RotateApiKeyCommand(keyId, body?.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS, by)));
  }

  @Put(':keyId/expiry')
  @ApiOperation({ operationId: 'setApiKeyExpiry', summary: 'Set or clear the instant after which the key is refused' })
  expire(@CurrentApiKey() by: AuthenticatedKey, @Param('keyId', IdParamPipe) keyId: string, @Body() body: SetApiKeyExpiryDto): Promise<ApiKeyRecord> {
    return mapped(this.commands.execute(new SetApiKeyExpiryCommand(keyId, body.expiresAt, by)));
  }
}
