import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ToolRegistry, type ToolDefinition } from '@rewind/engine';
import { GetToolQuery } from './get-tool.query';

@QueryHandler(GetToolQuery)
export class GetToolHandler implements IQueryHandler<GetToolQuery, ToolDefinition | null> {
  constructor(private readonly tools: ToolRegistry) {}

  execute({ tenantId, name }: GetToolQuery): Promise<ToolDefinition | null> {
    return this.tools.get(tenantId, name);
  }
}
