import { LRUCache } from 'lru-cache';
import type { EventStore, StoredEvent } from '../event-store';

interface Page {
  events: Promise<StoredEvent[]>;
  limit: number;
  /** When the read finished (0 while in flight). */
  doneAt: number;
  /** A full page is final: the log below its last event never changes. */
  full: boolean;
}

/**
 * One read of the global log for all the subscriptions of a process. They mostly wait at the
 * same position, and would otherwise each query the same events. A page is shared while in
 * flight, for good once full, and for a moment when short (more events may have arrived
 * since). Handlers only read the events they are given.
 */
export class SharedLogReader {
  private readonly pages: LRUCache<number, Page>;

  constructor(
    private readonly store: EventStore,
    private readonly options: { shortPageMs?: number; maxPages?: number } = {},
  ) {
    this.pages = new LRUCache({ max: options.maxPages ?? 16 });
  }

  /** There is news in the log: short pages already read are stale (pages in flight and full ones stay). */
  forgetShortPages(): void {
    for (const [after, page] of [...this.pages.entries()]) if (page.doneAt !== 0 && !page.full) this.pages.delete(after);
  }

  read(after: number, limit: number): Promise<StoredEvent[]> {
    const cached = this.pages.get(after);
    if (cached && cached.limit >= limit && (cached.doneAt === 0 || cached.full || Date.now() - cached.doneAt <= (this.options.shortPageMs ?? 20))) {
      // Subscriptions read in batches of different sizes (the memory indexer's 256 beside the read
      // models' 1 000): a larger page at the same position answers a smaller read with its beginning.
      return cached.limit === limit ? cached.events : cached.events.then((events) => events.slice(0, limit));
    }
    const page: Page = { events: Promise.resolve([]), limit, doneAt: 0, full: false };
    page.events = this.store.readAll({ after, limit }).then(
      (stored) => {
        page.doneAt = Date.now();
        page.full = stored.length >= limit;
        return stored;
      },
      (error: unknown) => {
        if (this.pages.get(after) === page) this.pages.delete(after);
        throw error;
      },
    );
    this.pages.set(after, page);
    return page.events;
  }
}
