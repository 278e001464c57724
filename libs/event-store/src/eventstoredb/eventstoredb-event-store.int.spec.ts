import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { describeEventStoreContract, newEvent } from '../testing/event-store.contract';
import { EventStoreDbEventStore, EventStoreDbUnavailableError } from './eventstoredb-event-store';

const url = process.env.EVENTSTOREDB_URL;

if (url) {
  // Each store gets its own namespace: an empty log on a shared server.
  describeEventStoreContract(
    `EventStoreDbEventStore on ${url}`,
    () => EventStoreDbEventStore.open({ url, namespace: `rewind-test-${randomUUID().slice(0, 8)}` }),
    {
      eventIdsUniqueAcrossStore: false,
    },
  );

  describe(`EventStoreDbEventStore snapshot retention on ${url}`, () => {
    it('truncates each snapshot stream before its newest K and deletes the segments only the removed ones used', async () => {
      const store = await EventStoreDbEventStore.open({ url, namespace: `rewind-test-${randomUUID().slice(0, 8)}` });
      try {
        const stream = `session:t1:${randomUUID()}`;
        await store.append(stream, [newEvent()], { expectedVersion: 'no_stream' });
        await store.saveSnapshot({ streamId: stream, version: 1, reducerVersion: 1, state: { refs: ['a'] } }, [{ id: 'a', data: '[1]' }]);
        await store.saveSnapshot({ streamId: stream, version: 2, reducerVersion: 1, state: { refs: ['b'] } }, [{ id: 'b', data: '[2]' }]);
        await store.saveSnapshot({ streamId: stream, version: 3, reducerVersion: 1, state: { refs: ['b'] } });
        const options = { keep: 2, dryRun: true, referencedSegments: (state: unknown) => (state as { refs: string[] }).refs };
        expect(await store.pruneSnapshots(options)).toMatchObject({ streams: 1, snapshotsDeleted: 1, segmentsDeleted: 1 });
        expect(await store.loadSnapshot(stream, 1, 1)).toMatchObject({ version: 1 });
        expect(await store.pruneSnapshots({ ...options, dryRun: false })).toMatchObject({ streams: 1, snapshotsDeleted: 1, segmentsDeleted: 1 });
        expect(await store.loadSnapshot(stream, 1, 1)).toBeNull();
        expect(await store.loadSnapshot(stream, 1, 3)).toMatchObject({ version: 3 });
        expect(Object.fromEntries(await store.loadSnapshotSegments(stream, ['a', 'b']))).toEqual({ b: '[2]' });
        expect(await store.pruneSnapshots({ ...options, dryRun: false })).toMatchObject({ streams: 0, snapshotsDeleted: 0 });
      } finally {
        await store.close();
      }
    });
  });
} else {
  describe.skip('EventStoreDbEventStore honours the event store contract on EventStoreDB [skipped: EVENTSTOREDB_URL is not set; no EventStoreDB server can be obtained on this machine; `docker compose --profile eventstoredb up eventstoredb` and EVENTSTOREDB_URL=esdb://127.0.0.1:2113?tls=false run it]', () => {
    it('runs the shared event store contract, and snapshot retention, against a real EventStoreDB', () => {});
  });
}

describe('EventStoreDbEventStore without a server', () => {
  it('refuses to open with a message naming EVENTSTOREDB_URL when nothing listens at the address', async () => {
    // Port 1 on the loopback: a real connection attempt, refused by the kernel.
    const opening = EventStoreDbEventStore.open({ url: 'esdb://admin:changeit@127.0.0.1:1?tls=false' });
    await expect(opening).rejects.toBeInstanceOf(EventStoreDbUnavailableError);
    await expect(opening).rejects.toThrow(/Cannot reach EventStoreDB at esdb:\/\/admin:\*\*\*@127\.0\.0\.1:1\?tls=false .*EVENTSTOREDB_URL/);
  });

  it('refuses a connection string the client cannot parse, naming EVENTSTOREDB_URL', async () => {
    await expect(EventStoreDbEventStore.open({ url: 'http://127.0.0.1:2113' })).rejects.toThrow(
      /EVENTSTOREDB_URL is not a valid EventStoreDB connection string/,
    );
  });

  it('refuses a namespace that would not make clean stream names', async () => {
    await expect(EventStoreDbEventStore.open({ url: 'esdb://127.0.0.1:1?tls=false', namespace: 'Bad/Name' })).rejects.toThrow(/Invalid EventStoreDB namespace/);
  });
});
