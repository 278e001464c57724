import { Query } from '@nestjs/cqrs';
import type { ToolDefinition } from '@rewind/engine';

/** One registered tool, or null when the tenant has registered none by that name. */
export class GetToolQuery extends Query<ToolDefinition | null> {
  constructor(
    readonly tenantId: string,
    readonly name: string,
  ) {
    super();
  }
}
