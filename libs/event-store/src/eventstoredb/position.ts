import type { Position } from '@eventstore/db-client';

/**
 * The port's global position for an event of `$all`: its commit position, a byte offset in
 * the server's transaction log.
 *
 * Every event Rewind writes comes from an append (gRPC has no explicit transactions), and the
 * server gives each such event commit position = prepare position = where its record starts,
 * so one number names the event exactly and `{ commit: n, prepare: n }` is a valid place to
 * start reading from. Offsets grow with the log, so they stay below 2^53 (what a JavaScript
 * number and the subscribers' checkpoints hold exactly) until the log passes 8 PiB.
 */
export function globalPositionOf(position: Position, eventId: string): number {
  if (position.commit !== position.prepare) {
    throw new Error(
      `Event ${eventId} has commit position ${position.commit} but prepare position ${position.prepare}: it was written in an explicit transaction (the legacy TCP API), which Rewind never does. Rewind's streams must only be written by Rewind.`,
    );
  }
  if (position.commit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`Event ${eventId} sits at log position ${position.commit}, beyond 2^53: the port's global position cannot hold it exactly.`);
  }
  return Number(position.commit);
}

/** Where a read of `$all` starts for a global position this store returned (reads of `$all` include their start). */
export function readPositionOf(globalPosition: number): Position {
  if (!Number.isSafeInteger(globalPosition) || globalPosition < 0) {
    throw new RangeError(`Global position ${globalPosition} is not one this store returns: use 0 or a position read from it.`);
  }
  const at = BigInt(globalPosition);
  return { commit: at, prepare: at };
}
