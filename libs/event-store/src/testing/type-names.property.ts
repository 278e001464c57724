import fc from 'fast-check';
import { expect } from 'vitest';
import type { EventStore } from '../event-store';
import { newEvent, readAllUntil } from './event-store.contract';

/**
 * Stores that keep event types as codes (PostgreSQL migration 7, SQLite format 2) give back
 * exactly the names they were given, whatever the names (empty, numeric-looking, any script)
 * and however they repeat, through every read. PostgreSQL text cannot hold NUL, so no name has one.
 */
export async function expectTypeNamesRoundTrip(store: EventStore, runs: number): Promise<void> {
  const name = fc.oneof(fc.constantFrom('', '0', '1', 'MemoryWritten'), fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        name.filter((s) => !s.includes('\u0000')),
        { minLength: 1, maxLength: 6 },
      ),
      async (types) => {
        const stream = `session:types:${n++}-${Math.random().toString(36).slice(2)}`;
        await store.append(
          stream,
          types.map((type) => newEvent(type)),
          { expectedVersion: 'no_stream' },
        );
        const read = await store.readStream(stream);
        expect(read.map((e) => e.type)).toEqual(types);
        expect((await store.loadSnapshotAndTail!(stream, 1, 100)).events.map((e) => e.type)).toEqual(types);
        // Until it has seen them: on PostgreSQL an open transaction elsewhere may hold the page back.
        const all = await readAllUntil(store, read[0]!.globalPosition - 1, (seen) => seen.length >= types.length, types.length);
        expect(all.slice(0, types.length).map((e) => e.type)).toEqual(types);
      },
    ),
    { numRuns: runs },
  );
}
