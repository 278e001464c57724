import { Query } from '@nestjs/cqrs';
import type { AuditEntry, AuditQuery, Page } from '@rewind/projections';

/** The tenant's audit log from the audit projection: who did what and when, in log order. */
export class AuditLogQuery extends Query<Page<AuditEntry>> {
  constructor(readonly filter: AuditQuery) {
    super();
  }
}
