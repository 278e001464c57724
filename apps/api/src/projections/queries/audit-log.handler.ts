import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { AuditEntry, Page } from '@rewind/projections';
import { ReadModelsService } from '../read-models.service';
import { AuditLogQuery } from './audit-log.query';

@QueryHandler(AuditLogQuery)
export class AuditLogHandler implements IQueryHandler<AuditLogQuery, Page<AuditEntry>> {
  constructor(private readonly readModels: ReadModelsService) {}

  async execute({ filter }: AuditLogQuery): Promise<Page<AuditEntry>> {
    await this.readModels.fresh('audit');
    return this.readModels.query(() => this.readModels.queries.auditLog(filter));
  }
}
