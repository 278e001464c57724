import type { EventStore } from '../event-store';

/** Pages read to count when a store cannot count by itself (a wrapper, EventStoreDB). */
const COUNT_PAGE = 1000;

/**
 * Events after `checkpoint` that a reader may see now. A count of events: on PostgreSQL
 * positions have gaps (sequence values of rolled-back transactions), so `head - checkpoint`
 * overstates it.
 */
export async function countEventsAfter(store: EventStore, checkpoint: number): Promise<number> {
  const head = await store.lastPosition();
  if (head <= checkpoint) return 0;
  if (store.countBetween) return store.countBetween(checkpoint, head);
  let count = 0;
  for (let after = checkpoint; after < head; ) {
    const page = await store.readAll({ after, limit: COUNT_PAGE });
    const within = page.filter((e) => e.globalPosition <= head);
    count += within.length;
    if (within.length < page.length || page.length < COUNT_PAGE) break;
    after = page[page.length - 1]!.globalPosition;
  }
  return count;
}
