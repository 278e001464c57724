import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { EncryptionPolicies, EncryptionPolicyStore } from '@rewind/tenancy';
import { ENCRYPTION_POLICIES } from '../tokens';
import { GetEncryptionPoliciesQuery } from './get-encryption-policies.query';

@QueryHandler(GetEncryptionPoliciesQuery)
export class GetEncryptionPoliciesHandler implements IQueryHandler<GetEncryptionPoliciesQuery, EncryptionPolicies> {
  constructor(@Inject(ENCRYPTION_POLICIES) private readonly store: EncryptionPolicyStore) {}

  execute({ tenantId }: GetEncryptionPoliciesQuery) {
    return this.store.policies(tenantId);
  }
}
