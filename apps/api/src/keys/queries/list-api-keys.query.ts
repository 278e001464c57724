import { Query } from '@nestjs/cqrs';
import type { ApiKeyRecord, AuthenticatedKey } from '@rewind/tenancy';

/** The keys of one tenant, or of all (ids, scopes, lifecycle; never secrets or hashes). */
export class ListApiKeysQuery extends Query<ApiKeyRecord[]> {
  constructor(
    readonly by: AuthenticatedKey,
    readonly tenantId?: string,
  ) {
    super();
  }
}
