import { sessionStreamPrefix } from '@rewind/engine';
import type { EventStore, StreamSummary } from '@rewind/event-store';

const PAGE = 1000;

/** Every session stream of a tenant, page by page. */
export async function tenantSessions(store: EventStore, tenantId: string): Promise<StreamSummary[]> {
  const out: StreamSummary[] = [];
  for (let after: string | undefined; ; ) {
    const page = await store.listStreams({ prefix: sessionStreamPrefix(tenantId), limit: PAGE, ...(after ? { after } : {}) });
    out.push(...page);
    if (page.length < PAGE) return out;
    after = page[page.length - 1]!.streamId;
  }
}
