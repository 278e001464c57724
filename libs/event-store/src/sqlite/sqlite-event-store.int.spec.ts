import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEventStoreContract, newEvent } from '../testing/event-store.contract';
import { SqliteEventStore } from './sqlite-event-store';

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
