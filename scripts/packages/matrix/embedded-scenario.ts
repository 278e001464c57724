// Shared by the ESM and CommonJS projects: in process (@rewind/embedded), a booking step, an
// undo and a rollback to a checkpoint; each undone booking runs the step's own undo.
import { Rewind } from '@rewind/embedded';
import { expectEqual } from './client-scenario.js';

export async function embeddedScenario(): Promise<string> {
  const cancelled: string[] = [];
  const rewind = Rewind.inMemory();
  try {
    const session = await rewind.startSession('trip');
    const start = await session.checkpoint('before-booking');
    const book = (bookingId: string) =>
      session.step('book_hotel', { city: 'Lisbon' }, () => ({ bookingId }), { undo: ({ output }) => void cancelled.push(output!.bookingId) });
    const booked = await book('B-1');
    expectEqual(booked, { bookingId: 'B-1' }, 'the step');
    await session.undo();
    expectEqual(cancelled, ['B-1'], 'bookings cancelled by the undo');
    await book('B-2');
    await book('B-3');
    const state = await session.rollbackTo('before-booking');
    expectEqual(cancelled, ['B-1', 'B-3', 'B-2'], 'bookings cancelled by the rollback');
    expectEqual([state.head, state.toolCalls.length], [start, 0], 'the state after the rollback');
    return `embedded: step, undo and rollback to v${start}, cancelled ${cancelled.join(', ')}`;
  } finally {
    await rewind.close();
  }
}
