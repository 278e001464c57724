import { Query } from '@nestjs/cqrs';
import type { AuditVerification } from '@rewind/event-store';

/** Recomputes the hash chains of a tenant's sessions (or one of them) against their seals. Read-only. */
export class VerifyChainsQuery extends Query<AuditVerification & { sessions: number }> {
  constructor(
    readonly tenantId: string,
    readonly sessionId?: string,
  ) {
    super();
  }
}
