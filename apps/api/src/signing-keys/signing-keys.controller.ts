import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Caller } from '@rewind/engine';
import { SigningKeyInputError, type KafkaSigningSecretStore, type SigningSecretRecord } from '@rewind/messaging';
import { CurrentCaller } from '../auth/caller.decorator';
import { ApiError } from '../common/api-error';
import { IdParamPipe } from '../sessions/path-params';
import { CreateSigningKeyDto, ListSigningKeysQueryDto } from './signing-keys.dto';
import { SIGNING_KEY_STORE } from '../infrastructure/tokens';

/** The record without the secrets a store keeps. */
function recordOf(key: SigningSecretRecord): SigningSecretRecord {
  const { keyId, tenantId, name, createdAt, revokedAt, expiresAt, previousSecretValidUntil } = key;
  return { keyId, tenantId, name, createdAt, revokedAt, expiresAt, previousSecretValidUntil };
}

/**
 * Kafka signing keys over HTTP, as `rewind signing-keys` does with the store: create (the secret
 * is in that answer only), list, revoke. Needs an `admin` key (auth/route-scopes.ts).
 */
@ApiTags('signing keys')
@ApiBearerAuth()
@Controller('v1/signing-keys')
export class SigningKeysController {
  constructor(@Inject(SIGNING_KEY_STORE) private readonly store: KafkaSigningSecretStore) {}

  @Post()
  @ApiOperation({ operationId: 'createSigningKey', summary: "Create a key that signs a tenant's Kafka commands; the secret is in this answer only" })
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateSigningKeyDto): Promise<{ secret: string; record: SigningSecretRecord }> {
    try {
      const key = await this.store.create({
        tenantId: body.tenantId ?? caller.tenantId,
        expiresAt: body.expiresAt ?? null,
        ...(body.name !== undefined ? { name: body.name } : {}),
      });
      return { secret: key.secret, record: recordOf(key) };
    } catch (error) {
      if (error instanceof SigningKeyInputError) throw new ApiError(400, 'validation_failed', error.message);
      throw error;
    }
  }

  @Get()
  @ApiOperation({ operationId: 'listSigningKeys', summary: 'List Kafka signing keys (ids, tenants, lifecycle; never secrets)' })
  async list(@CurrentCaller() caller: Caller, @Query() query: ListSigningKeysQueryDto): Promise<{ items: SigningSecretRecord[] }> {
    const tenantId = query.tenantId === '*' ? undefined : (query.tenantId ?? caller.tenantId);
    return { items: (await this.store.list(tenantId)).map(recordOf) };
  }

  @Post(':keyId/revoke')
  @HttpCode(200)
  @ApiOperation({ operationId: 'revokeSigningKey', summary: 'Revoke a signing key at once: commands signed with it go to the DLQ as unauthenticated' })
  async revoke(@Param('keyId', IdParamPipe) keyId: string): Promise<SigningSecretRecord> {
    if (!(await this.store.revoke(keyId))) throw new ApiError(404, 'signing_key_not_found', `No signing key "${keyId}": list them with GET /v1/signing-keys.`);
    const key = (await this.store.list()).find((k) => k.keyId === keyId)!;
    return recordOf(key);
  }
}
