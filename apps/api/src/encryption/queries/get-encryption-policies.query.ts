import { Query } from '@nestjs/cqrs';
import type { EncryptionPolicies } from '@rewind/tenancy';

/** Which tool paths and memory keys a tenant always encrypts. */
export class GetEncryptionPoliciesQuery extends Query<EncryptionPolicies> {
  constructor(readonly tenantId: string) {
    super();
  }
}
