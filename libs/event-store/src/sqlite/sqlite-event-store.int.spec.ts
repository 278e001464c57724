import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEventStoreContract, newEvent } from '../testing/event-store.contract';
import { expectTypeNamesRoundTrip } from '../testing/type-names.property';
import { SqliteEventStore } from './sqlite-event-store';
import { storedIdempotencyKey } from '../idempotency-key';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'rewind-sqlite-')), 'events.db');

describeEventStoreContract('SqliteEventStore (file, WAL)', async () => new SqliteEventStore({ filename: freshFile() }));

describe('SqliteEventStore durability settings', () => {
  it('uses WAL with synchronous FULL by default, so a commit is on disk when append resolves', async () => {
    const store = new SqliteEventStore({ filename: freshFile() });
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    await store.close();
  });

  it('keeps every appended event after the file is closed and reopened', async () => {
    const filename = freshFile();
    const first = new SqliteEventStore({ filename });
    await first.append('session:t:s', [newEvent(), newEvent()], { expectedVersion: 'no_stream' });
    await first.close();
    const second = new SqliteEventStore({ filename });
    expect((await second.readStream('session:t:s')).map((e) => e.streamVersion)).toEqual([1, 2]);
    await second.close();
  });
});

describe('SqliteEventStore event ids', () => {
  it('stores UUID event ids as 16-byte blobs and other ids as text, and reads both back', async () => {
    const store = new SqliteEventStore({ filename: freshFile() });
    const ids = [randomUUID(), 'not-a-uuid', randomUUID().toUpperCase()];
    await store.append(
      'session:t:ids',
      ids.map((eventId) => ({ ...newEvent(), eventId })),
      { expectedVersion: 'no_stream' },
    );
    const rows = store.db.prepare('SELECT typeof(event_id) AS kind, length(event_id) AS bytes FROM events ORDER BY global_position').all();
    expect(rows).toEqual([
      { kind: 'blob', bytes: 16 },
      { kind: 'text', bytes: 10 },
      { kind: 'text', bytes: 36 },
    ]);
    expect((await store.readStream('session:t:ids')).map((e) => e.eventId)).toEqual(ids);
    for (const id of ids) {
      await expect(store.append('session:t:other', [{ ...newEvent(), eventId: id }], { expectedVersion: 'any' })).rejects.toThrow(/UNIQUE/);
    }
    await store.close();
  });

  it('converts the text UUIDs of a file written before, once, and keeps them unique', async () => {
    const filename = freshFile();
    const first = new SqliteEventStore({ filename });
    const old = randomUUID();
    await first.append('session:t:s', [{ ...newEvent(), eventId: 'legacy' }, newEvent()], { expectedVersion: 'no_stream' });
    // As the earlier format wrote it: the UUID as text, and no format row (nor table versions: the file predates them).
    first.db.prepare('UPDATE events SET event_id = ? WHERE stream_version = 2').run(old);
    first.db.exec("DROP TABLE events_format; DELETE FROM schema_versions WHERE store = 'events'");
    await first.close();
    const second = new SqliteEventStore({ filename });
    expect(second.db.prepare('SELECT typeof(event_id) AS kind FROM events ORDER BY global_position').all()).toEqual([{ kind: 'text' }, { kind: 'blob' }]);
    expect((await second.readStream('session:t:s')).map((e) => e.eventId)).toEqual(['legacy', old]);
    await expect(second.append('session:t:s', [{ ...newEvent(), eventId: old }], { expectedVersion: 2 })).rejects.toThrow(/UNIQUE/);
    expect(second.db.prepare('SELECT version FROM events_format').all()).toEqual([{ version: 3 }]);
    await second.close();
  });
});

describe('SqliteEventStore event types', () => {
  it('gives back any type name as it was given, through every read (property)', async () => {
    const store = new SqliteEventStore({ filename: freshFile() });
    try {
      await expectTypeNamesRoundTrip(store, 60);
    } finally {
      await store.close();
    }
  });

  it('stores new types as codes of event_types, keeps the names of rows written before format 2, and reads codes another process registered', async () => {
    const filename = freshFile();
    const first = new SqliteEventStore({ filename });
    await first.append('session:t:s', [newEvent('SessionStarted'), newEvent('MemoryWritten')], { expectedVersion: 'no_stream' });
    // As format 1 wrote them: the name in type, no code column, format 1.
    first.db.exec(`UPDATE events SET type = (SELECT name FROM event_types WHERE code = events.type_code)`);
    first.db.exec('ALTER TABLE events DROP COLUMN type_code');
    first.db.exec('DELETE FROM event_types');
    first.db.exec('UPDATE events_format SET version = 1');
    await first.close();

    const second = new SqliteEventStore({ filename });
    const other = new SqliteEventStore({ filename });
    try {
      await second.append('session:t:s', [newEvent('MemoryWritten'), newEvent('ToolCallStarted')], { expectedVersion: 2 });
      await other.append('session:t:s', [newEvent('ToolCallSucceeded')], { expectedVersion: 4 });
      const rows = second.db.prepare('SELECT type, type_code IS NOT NULL AS coded FROM events ORDER BY global_position').all();
      expect(rows).toEqual([
        { type: 'SessionStarted', coded: 0 },
        { type: 'MemoryWritten', coded: 0 },
        { type: '', coded: 1 },
        { type: '', coded: 1 },
        { type: '', coded: 1 },
      ]);
      const types = ['SessionStarted', 'MemoryWritten', 'MemoryWritten', 'ToolCallStarted', 'ToolCallSucceeded'];
      for (const reader of [second, other]) {
        expect((await reader.readStream('session:t:s')).map((e) => e.type)).toEqual(types);
        expect((await reader.readAll({ after: 0, limit: 10 })).map((e) => e.type)).toEqual(types);
        expect((await reader.loadSnapshotAndTail('session:t:s', 1, 10)).events.map((e) => e.type)).toEqual(types);
      }
      expect(second.db.prepare('SELECT name FROM event_types ORDER BY code').all()).toEqual(
        ['MemoryWritten', 'ToolCallStarted', 'ToolCallSucceeded'].map((name) => ({ name })),
      );
    } finally {
      await second.close();
      await other.close();
    }
  });
});

describe('SqliteEventStore idempotency keys', () => {
  it('stores only a hash of each Idempotency-Key, and still recognises the retry', async () => {
    const filename = freshFile();
    const store = new SqliteEventStore({ filename });
    const claim = { scope: 't', key: 'refund-order-4711-alice@example.com', fingerprint: 'F' };
    const first = await store.append('session:t:idem', [newEvent()], { expectedVersion: 'no_stream', idempotency: claim });
    expect(await store.append('session:t:idem', [newEvent()], { expectedVersion: 'any', idempotency: claim })).toEqual({ ...first, duplicate: true });
    const keys = store.db.prepare<[], { key: string }>('SELECT key FROM idempotency_keys').all();
    expect(keys).toEqual([{ key: storedIdempotencyKey(claim.key) }]);
    await store.close();
    const bytes = Buffer.concat([filename, `${filename}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    expect(bytes.includes(Buffer.from('alice@example.com'))).toBe(false);
  });
});

describe('SqliteEventStore snapshot keys', () => {
  it('drops the snapshots of a file sealed before seals were keyed (caches, never taken for forgeries), and seals the next with a key', async () => {
    const filename = freshFile();
    const first = new SqliteEventStore({ filename });
    await first.append('session:t:s', [newEvent(), newEvent()], { expectedVersion: 'no_stream' });
    await first.saveSnapshot({ streamId: 'session:t:s', version: 2, reducerVersion: 1, state: { n: 2 } });
    // As the version before keyed seals left the file: no key table (its snapshot's seal then was a plain hash).
    first.db.exec('DROP TABLE snapshot_keys');
    await first.close();
    const second = new SqliteEventStore({ filename });
    expect(second.db.prepare('SELECT count(*) AS n FROM snapshots').get()).toEqual({ n: 0 });
    expect(await second.checkSnapshots({})).toEqual({ checked: 0, rejected: [] });
    expect(second.db.prepare('SELECT count(*) AS n FROM snapshot_keys').get()).toEqual({ n: 1 });
    await second.saveSnapshot({ streamId: 'session:t:s', version: 2, reducerVersion: 1, state: { n: 2 } });
    expect((await second.loadSnapshot('session:t:s', 1, 2))?.state).toEqual({ n: 2 });
    // The same snapshot read as another reducer version does not hold: the reducer version is sealed too.
    second.db.exec('UPDATE snapshots SET reducer_version = 2');
    expect(await second.loadSnapshot('session:t:s', 2, 2)).toBeNull();
    await second.close();
  });
});
