import { BACKWARDS, END, FORWARDS, type AllStreamRecordedEvent, type EventStoreDBClient, type Position } from '@eventstore/db-client';

/**
 * Reads `$all` event by event until `take` says stop: forwards from `from` (a read includes
 * the event at its start), or backwards from the end. Leaving early ends the call on the server.
 */
export async function scanAll(
  client: EventStoreDBClient,
  from: Position | typeof END,
  take: (event: AllStreamRecordedEvent) => 'continue' | 'stop',
): Promise<void> {
  const read = client.readAll({ fromPosition: from, direction: from === END ? BACKWARDS : FORWARDS, resolveLinkTos: false, requiresLeader: true });
  try {
    for await (const resolved of read) {
      if (resolved.event && take(resolved.event) === 'stop') break;
    }
  } finally {
    if (!read.destroyed) await read.cancel().catch(() => undefined);
  }
}
