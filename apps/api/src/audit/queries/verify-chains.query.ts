import { Query } from '@nestjs/cqrs';
import type { AuditVerification } from '@rewind/event-store';

/** The verification as a tenant's auditor reads it: the broken link has no position in the whole log. */
export type ChainsAnswer = Omit<AuditVerification, 'firstBroken'> & { firstBroken: Omit<NonNullable<AuditVerification['firstBroken']>, 'position'> | null };

/** Recomputes the hash chains of a tenant's sessions (or one of them) against their seals. Read-only. */
export class VerifyChainsQuery extends Query<ChainsAnswer & { sessions: number }> {
  constructor(
    readonly tenantId: string,
    readonly sessionId?: string,
  ) {
    super();
  }
}
