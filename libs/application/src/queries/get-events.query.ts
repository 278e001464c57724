import { Query } from '@nestjs/cqrs';
import type { Caller } from '@rewind/engine';
import type { StoredEvent } from '@rewind/event-store';

/** A page of a session's raw events in stream order (audit). */
export class GetEventsQuery extends Query<StoredEvent[]> {
  constructor(
    readonly caller: Caller,
    readonly sessionId: string,
    readonly from: number,
    readonly limit: number,
  ) {
    super();
  }
}
