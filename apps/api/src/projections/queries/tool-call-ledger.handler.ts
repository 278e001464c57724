import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Page, ToolCallEntry } from '@rewind/projections';
import { ReadModelsService } from '../read-models.service';
import { ToolCallLedgerQuery } from './tool-call-ledger.query';

@QueryHandler(ToolCallLedgerQuery)
export class ToolCallLedgerHandler implements IQueryHandler<ToolCallLedgerQuery, Page<ToolCallEntry>> {
  constructor(private readonly readModels: ReadModelsService) {}

  async execute({ filter }: ToolCallLedgerQuery): Promise<Page<ToolCallEntry>> {
    await this.readModels.fresh('ledger');
    return this.readModels.query(() => this.readModels.queries.toolCalls(filter));
  }
}
