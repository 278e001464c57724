import { randomUUID } from 'node:crypto';
import {
  ANY,
  MaxAppendSizeExceededError,
  NO_STREAM,
  UnavailableError,
  WrongExpectedVersionError,
  type AllStreamJSONRecordedEvent,
} from '@eventstore/db-client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyError, type NewEvent } from '../event-store';
import { newEvent } from '../testing/event-store.contract';
import { AppendTooLargeError, EventStoreDbUnavailableError, maskEventStoreDbUrl, toPortError, versionOf } from './errors';
import { claimedKeyOf, nameBasedUuid, serverEventId, toEventData, toStoredEvent } from './event-mapping';
import { expectedRevisionOf } from './eventstoredb-event-store';
import { globalPositionOf, readPositionOf } from './position';
import { StreamNames } from './stream-names';

/** What the client gives back for `data` as the server stored it: JSON text parsed again. */
function recorded(event: NewEvent, streamName: string, revision: bigint, at: bigint, idempotencyKey?: string): AllStreamJSONRecordedEvent {
  const data = toEventData(event, idempotencyKey);
  return {
    streamId: streamName,
    id: data.id,
    isJson: true,
    revision,
    type: data.type,
    created: new Date(),
    data: JSON.parse(JSON.stringify(data.data)) as AllStreamJSONRecordedEvent['data'],
    metadata: JSON.parse(JSON.stringify(data.metadata)) as AllStreamJSONRecordedEvent['metadata'],
    position: { commit: at, prepare: at },
  };
}

const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

describe('EventStoreDB positions', () => {
  it('map a commit position to the global position and back to the same read position', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) }), (at) => {
        const global = globalPositionOf({ commit: at, prepare: at }, 'e');
        expect(global).toBe(Number(at));
        expect(readPositionOf(global)).toEqual({ commit: at, prepare: at });
      }),
    );
  });

  it('keep the order of the log: a later record never gets a smaller global position', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) }), fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) }), (a, b) => {
        const [pa, pb] = [globalPositionOf({ commit: a, prepare: a }, 'a'), globalPositionOf({ commit: b, prepare: b }, 'b')];
        expect(Math.sign(pa - pb)).toBe(a === b ? 0 : a < b ? -1 : 1);
      }),
    );
  });

  it('refuse what one number cannot name exactly: events of explicit transactions, positions beyond 2^53, and made-up read positions', () => {
    expect(() => globalPositionOf({ commit: 200n, prepare: 100n }, 'e1')).toThrow(/explicit transaction/);
    expect(() => globalPositionOf({ commit: 2n ** 53n, prepare: 2n ** 53n }, 'e2')).toThrow(/beyond 2\^53/);
    expect(() => readPositionOf(-1)).toThrow(/not one this store returns/);
    expect(() => readPositionOf(1.5)).toThrow(/not one this store returns/);
  });
});

describe('EventStoreDB event mapping', () => {
  it('round-trips any event: id, type, JSON data, parent version and metadata', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uuid().map((u) => u.toLowerCase()),
          fc.string({ minLength: 1 }),
          fc.uuid().map((u) => u.toUpperCase()),
        ),
        json,
        fc.option(fc.nat(), { nil: null }),
        fc.option(fc.string(), { nil: null }),
        fc.nat({ max: 1000 }),
        (eventId, data, parentVersion, causationId, revision) => {
          const base = newEvent('Anything', data, parentVersion);
          const event: NewEvent = { ...base, eventId, metadata: { ...base.metadata, causationId } };
          const stored = toStoredEvent(recorded(event, 'rewind/session:t1:s1', BigInt(revision), 4096n), 'session:t1:s1', 4096);
          expect(stored).toEqual({ ...event, data: data ?? null, streamId: 'session:t1:s1', streamVersion: revision + 1, globalPosition: 4096 });
        },
      ),
    );
  });

  it('gives the server a UUID per event: a canonical one as it is, any other id a stable UUID named by it', () => {
    const uuid = randomUUID();
    expect(serverEventId(uuid)).toBe(uuid);
    expect(serverEventId('evt-1')).toBe(serverEventId('evt-1'));
    expect(serverEventId('evt-1')).not.toBe(serverEventId('evt-2'));
    expect(serverEventId(uuid.toUpperCase())).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(nameBasedUuid('x')).toBe(nameBasedUuid('x'));
  });

  it("writes EventStoreDB's own correlation and causation metadata, and the claimed idempotency key", () => {
    const event = newEvent();
    const data = toEventData({ ...event, metadata: { ...event.metadata, causationId: 'cause' } }, 'sha256:abc');
    expect(data.metadata).toMatchObject({ $correlationId: event.metadata.correlationId, $causationId: 'cause', idempotencyKey: 'sha256:abc' });
    expect(claimedKeyOf(recorded(event, 'rewind/s', 0n, 1n, 'sha256:abc'))).toBe('sha256:abc');
    expect(claimedKeyOf(recorded(event, 'rewind/s', 0n, 1n))).toBeUndefined();
  });

  it('refuses to read an event another program wrote into a Rewind stream, saying so', () => {
    const foreign = { ...recorded(newEvent(), 'rewind/s', 0n, 1n), metadata: { note: 'hand-written' } };
    expect(() => toStoredEvent(foreign, 's', 1)).toThrow(/not written by Rewind/);
  });
});

describe('EventStoreDB expected revisions and errors', () => {
  it("map the port's expected versions onto the client's revisions (versions count from 1, revisions from 0)", () => {
    expect(expectedRevisionOf('any')).toBe(ANY);
    expect(expectedRevisionOf('no_stream')).toBe(NO_STREAM);
    expect(expectedRevisionOf(0)).toBe(NO_STREAM);
    expect(expectedRevisionOf(1)).toBe(0n);
    expect(expectedRevisionOf(42)).toBe(41n);
    expect(versionOf(NO_STREAM)).toBe(0);
    expect(versionOf(4n)).toBe(5);
  });

  it("turn the client's wrong expected version into the port's ConcurrencyError with the actual version", () => {
    const error = toPortError(new WrongExpectedVersionError(undefined, { streamName: 'rewind/s', expected: 1n, current: 4n }), 'esdb://h:2113', 's', 2);
    expect(error).toBeInstanceOf(ConcurrencyError);
    expect(error).toMatchObject({ streamId: 's', expected: 2, actual: 5 });
    const missing = toPortError(
      new WrongExpectedVersionError(undefined, { streamName: 'rewind/s', expected: 0n, current: NO_STREAM }),
      'esdb://h:2113',
      's',
      1,
    );
    expect(missing).toMatchObject({ actual: 0 });
  });

  it("say when an append is larger than the server's maximum append size, and what sets it", () => {
    const error = toPortError(new MaxAppendSizeExceededError(undefined, 1_048_576), 'esdb://h:2113', 'session:t:s', 'any');
    expect(error).toBeInstanceOf(AppendTooLargeError);
    expect((error as Error).message).toMatch(/append to session:t:s: .*maximum append size \(1048576 bytes; the server's MaxAppendSize setting\)/);
  });

  it('name EVENTSTOREDB_URL, without its password, when the server cannot be reached', () => {
    const raw = Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 });
    for (const cause of [raw, new UnavailableError()]) {
      const error = toPortError(cause, 'esdb://admin:secret@db:2113?tls=false', 's', 'any');
      expect(error).toBeInstanceOf(EventStoreDbUnavailableError);
      expect((error as Error).message).toMatch(/Cannot reach EventStoreDB at esdb:\/\/admin:\*\*\*@db:2113\?tls=false .*Set EVENTSTOREDB_URL/);
      expect((error as Error).message).not.toContain('secret');
    }
    const other = new Error('something else');
    expect(toPortError(other, 'esdb://h', 's', 'any')).toBe(other);
    expect(maskEventStoreDbUrl('esdb://127.0.0.1:2113')).toBe('esdb://127.0.0.1:2113');
  });
});

describe('EventStoreDB stream names', () => {
  it("keep the log's streams apart from the store's own records and from other namespaces", () => {
    const names = new StreamNames('rewind');
    expect(names.portStreamId(names.log('session:t:s'))).toBe('session:t:s');
    for (const own of [names.snapshots('session:t:s'), names.segment('session:t:s', 'a'), names.idempotency('t', 'sha256:x'), names.catalogue, names.origin]) {
      expect(names.portStreamId(own)).toBeNull();
    }
    expect(names.portStreamId(new StreamNames('rewind2').log('session:t:s'))).toBeNull();
    expect(names.portStreamId('$stats-127.0.0.1:2113')).toBeNull();
    expect(() => new StreamNames('Bad/Name')).toThrow(/Invalid EventStoreDB namespace/);
  });
});
