import { Query } from '@nestjs/cqrs';
import type { ToolDefinition } from '@rewind/engine';

/** The tenant's registered tools. */
export class ListToolsQuery extends Query<ToolDefinition[]> {
  constructor(readonly tenantId: string) {
    super();
  }
}
