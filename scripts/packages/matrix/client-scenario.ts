// Shared by the install matrix's projects (ESM, CommonJS, Vite): through @rewind/client, a
// booking step, an undo and a rollback to a checkpoint on a live API. The server compensates
// each undone booking by calling the stand-in hotel service (`hotel.url`), which records it.
import type { RewindClient } from '@rewind/client';

export interface Hotel {
  url: string;
  cancelled: string[];
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

export async function clientScenario(client: RewindClient, hotel: Hotel, sessionId: string): Promise<string> {
  const compensation = { channel: 'http' as const, target: `${hotel.url}/bookings/{{output.bookingId}}/cancel` };
  const book = async (toolCallId: string, bookingId: string) => {
    await client.startToolCall(sessionId, { toolCallId, tool: 'book_hotel', input: { city: 'Lisbon' }, effect: { kind: 'compensable', compensation } });
    await client.succeedToolCall(sessionId, toolCallId, { bookingId });
  };
  await client.startSession({ sessionId });
  await client.createCheckpoint(sessionId, 'before-booking');
  await book('h1', 'B-1');
  const undo = await client.undo(sessionId, { waitMs: 10_000 });
  expectEqual(hotel.cancelled, ['B-1'], `bookings cancelled by the undo (${JSON.stringify(undo.rollback)})`);
  await book('h2', 'B-2');
  await book('h3', 'B-3');
  const rollback = await client.rollback(sessionId, { toCheckpoint: 'before-booking', waitMs: 10_000 });
  expectEqual(hotel.cancelled, ['B-1', 'B-3', 'B-2'], `bookings cancelled by the rollback (${JSON.stringify(rollback.rollback)})`);
  return `client: step, undo and rollback on ${sessionId}, the server cancelled ${hotel.cancelled.join(', ')}`;
}
