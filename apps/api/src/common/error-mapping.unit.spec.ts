import { AppendTooLargeError, EventStoreDbUnavailableError } from '@rewind/event-store/eventstoredb';
import { describe, expect, it } from 'vitest';
import { toApiError } from './error-mapping';

describe('errors of the EventStoreDB store, as HTTP answers', () => {
  it('answer 413 when the server refuses an append larger than its MaxAppendSize (nothing was written), naming the setting', () => {
    // What the adapter throws for the client's MaxAppendSizeExceededError (eventstoredb-mapping.unit.spec.ts).
    const error = new AppendTooLargeError(
      "EventStoreDB refused the append to session:t:s: it is larger than the server's maximum append size (1048576 bytes; the server's MaxAppendSize setting); nothing was written.",
    );
    const answer = toApiError(error);
    expect(answer).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(answer.message).toMatch(/MaxAppendSize.*nothing was written/);
  });

  it('answer 503 with Retry-After when the server cannot be reached', () => {
    const error = new EventStoreDbUnavailableError('Cannot reach EventStoreDB at esdb://h:2113 (14 UNAVAILABLE). Set EVENTSTOREDB_URL to point at it.');
    expect(toApiError(error)).toMatchObject({ status: 503, code: 'store_unavailable', headers: { 'retry-after': '1' } });
  });
});
