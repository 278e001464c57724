import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ToolRegistry, type ToolDefinition } from '@rewind/engine';
import { ListToolsQuery } from './list-tools.query';

@QueryHandler(ListToolsQuery)
export class ListToolsHandler implements IQueryHandler<ListToolsQuery, ToolDefinition[]> {
  constructor(private readonly tools: ToolRegistry) {}

  execute({ tenantId }: ListToolsQuery): Promise<ToolDefinition[]> {
    return this.tools.list(tenantId);
  }
}
