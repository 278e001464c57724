import { AppendTooLargeError, EventStoreDbUnavailableError } from '@rewind/event-store/eventstoredb';
import { Logger } from '@nestjs/common';
import { describe, expect, it, vi } from 'vitest';
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
    // Said at ERROR for the operator (checked here, not printed among passing tests).
    const said = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      expect(toApiError(error)).toMatchObject({ status: 503, code: 'store_unavailable', headers: { 'retry-after': '1' } });
      expect(said).toHaveBeenCalledWith(expect.objectContaining({ msg: expect.stringContaining('The event store is unreachable: Cannot reach EventStoreDB') }));
    } finally {
      said.mockRestore();
    }
  });
});
