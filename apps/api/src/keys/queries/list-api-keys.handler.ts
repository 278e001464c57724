import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ApiKeyRecord, ApiKeyStore } from '@rewind/tenancy';
import { API_KEY_STORE } from '../../infrastructure/tokens';
import { keyAuthority } from '../key-authority';
import { ListApiKeysQuery } from './list-api-keys.query';

@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery, ApiKeyRecord[]> {
  constructor(@Inject(API_KEY_STORE) private readonly keys: ApiKeyStore) {}

  async execute({ by, tenantId }: ListApiKeysQuery) {
    keyAuthority.list(by, tenantId);
    return keyAuthority.visible(by, await this.keys.list(tenantId));
  }
}
