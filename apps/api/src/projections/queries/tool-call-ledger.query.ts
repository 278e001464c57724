import { Query } from '@nestjs/cqrs';
import type { Page, ToolCallEntry, ToolCallQuery } from '@rewind/projections';

/** The tool-call ledger from its projection: every call, its declared effect, outcome and compensation. */
export class ToolCallLedgerQuery extends Query<Page<ToolCallEntry>> {
  constructor(readonly filter: ToolCallQuery) {
    super();
  }
}
