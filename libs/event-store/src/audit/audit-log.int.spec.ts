import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventStore, ReadAllOptions, Snapshot, SnapshotSegment, StoredEvent } from '../event-store';
import { InMemoryEventStore } from '../in-memory';
import { PostgresEventStore } from '../postgres/postgres-event-store';
import { PostgresSealStore } from '../postgres/postgres-seal-store';
import { useTestDatabase } from '../postgres/test-database';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import { SqliteSealStore } from '../sqlite/sqlite-seal-store';
import { newEvent } from '../testing/event-store.contract';
import { expectedLink, formatDigest, parseDigest, sha256Bytes, snapshotSeal } from './audit-chain';
import { rejectedSnapshotCount } from './snapshot-rejections';
import { logDigest, sealLog, verifyLog } from './audit-log';
import { InMemorySealStore, type SealStore } from './seal-store';

const db = useTestDatabase();

interface Opened {
  store: EventStore;
  seals: SealStore;
  /** Runs SQL on the raw tables (`events` and `event_seals` name the store's). */
  raw(sql: string): Promise<void>;
  /** SQL that plants a copy of the trip's first event as the first event of a new session, 'session:acme:planted'. */
  plant(): Promise<void>;
  /** Raises the recorded boundary of links (links_from) above every event, as someone hiding an inserted event would. */
  raiseLinksFrom(): Promise<void>;
  /** Leaves the events as the version before links wrote them: no link, and links start after them. */
  unlink(): Promise<void>;
  /** SQL for a bytea / BLOB literal. */
  bytes(value: Buffer): string;
  /** Reopens the same store (another process after the first stopped). */
  reopen(): Promise<Opened>;
  close(): Promise<void>;
}

const backends: [string, () => Promise<Opened>][] = [
  ['SQLite', async () => openSqlite(join(mkdtempSync(join(tmpdir(), 'rewind-audit-')), 'rewind.db'))],
  ['PostgreSQL', async () => openPostgres(await db.openStore())],
];

function openSqlite(file: string): Opened {
  const store = new SqliteEventStore({ filename: file });
  const seals = new SqliteSealStore(file);
  const run = async (sql: string) => {
    const conn = new Database(file);
    conn.exec(sql);
    conn.close();
  };
  return {
    store,
    seals,
    raw: run,
    bytes: (value) => `X'${value.toString('hex')}'`,
    plant: () =>
      run(`INSERT INTO streams (stream_id, version, created_at, updated_at) VALUES ('session:acme:planted', 1, '2026-01-01', '2026-01-01');
      INSERT INTO events (global_position, stream_id, stream_version, event_id, type, type_code, parent_version, data, metadata)
      SELECT (SELECT max(global_position) FROM events) + 1, 'session:acme:planted', 1, 'planted-1', type, type_code, parent_version, data, metadata
        FROM events WHERE stream_id = 'session:acme:trip' AND stream_version = 1`),
    reopen: async () => openSqlite(file),
    raiseLinksFrom: () => run('UPDATE audit_chain SET links_from = (SELECT max(global_position) + 1 FROM events)'),
    unlink: () => run(`UPDATE events SET link = NULL; DELETE FROM events_format; INSERT INTO events_format (version) VALUES (2); DROP TABLE audit_chain;`),
    close: async () => {
      await seals.close();
      await store.close();
    },
  };
}

function openPostgres(store: PostgresEventStore): Opened {
  const seals = new PostgresSealStore(store.pool, store.schema);
  const s = `"${store.schema}"`;
  return {
    store,
    seals,
    bytes: (value) => `'\\x${value.toString('hex')}'::bytea`,
    // At a free position below the newest events: right after the trip's first event (its transaction wrote one).
    plant: async () => {
      await store.pool.query(`INSERT INTO ${s}.streams (stream_id, version, created_at, updated_at) VALUES ('session:acme:planted', 1, now(), now());
          INSERT INTO ${s}.events (global_position, stream_key, stream_version, parent_version, event_text, type_code, data, metadata)
          SELECT e.global_position + 1, (SELECT id FROM ${s}.streams WHERE stream_id = 'session:acme:planted'), 1, e.parent_version, 'planted-1', e.type_code, e.data, e.metadata
            FROM ${s}.events e WHERE e.stream_key = (SELECT id FROM ${s}.streams WHERE stream_id = 'session:acme:trip') AND e.stream_version = 1`);
    },
    reopen: async () => openPostgres(await db.openStore({ schema: store.schema })),
    raiseLinksFrom: async () => {
      await store.pool.query(`UPDATE ${s}.store_info SET links_from = (SELECT max(global_position) + 1 FROM ${s}.events)`);
    },
    unlink: async () => {
      await store.pool.query(`UPDATE ${s}.events SET link = NULL; UPDATE ${s}.store_info SET links_from = (SELECT max(global_position) + 1 FROM ${s}.events)`);
    },
    raw: async (sql) => {
      // The compact events table keys streams by number: `stream_id = 'x'` reads as the stream's key.
      const resolved = sql
        .replaceAll(/stream_id = '([^']+)'/g, `stream_key = (SELECT id FROM ${s}.streams WHERE stream_id = '$1')`)
        .replaceAll('event_seals', `${s}.event_seals`)
        .replaceAll('event_types', `${s}.event_types`)
        .replaceAll(/\bevents\b/g, `${s}.events`)
        .replaceAll(/\bsnapshots\b/g, `${s}.snapshots`)
        .replaceAll('state = replace(state,', 'state = replace(state::text,')
        .replaceAll("'forged')", "'forged')::json")
        .replaceAll('data = replace(data,', 'data = replace(data::text,')
        .replaceAll("'Parjs')", "'Parjs')::json");
      await store.pool.query(resolved);
    },
    close: () => store.close(),
  };
}

/** Two sessions: a trip (with 'Paris' in its data) and another, interleaved in the global log. */
async function writeLog(store: EventStore): Promise<void> {
  await store.append('session:acme:trip', [newEvent('SessionStarted', { title: 'trip' })], { expectedVersion: 'no_stream' });
  await store.append('session:acme:other', [newEvent('SessionStarted', { title: 'other' })], { expectedVersion: 'no_stream' });
  await store.append('session:acme:trip', [newEvent('MemoryWritten', { key: 'destination', value: 'Paris' })], { expectedVersion: 1 });
  await store.append('session:acme:trip', [newEvent('MemoryWritten', { key: 'flight', value: 'AF1381' })], { expectedVersion: 2 });
  await store.append('session:acme:other', [newEvent('MemoryWritten', { key: 'k', value: 1 })], { expectedVersion: 1 });
  await store.append('session:acme:trip', [newEvent('MemoryWritten', { key: 'hotel', value: 'Ritz' })], { expectedVersion: 3 });
}

/**
 * Waits (bounded) until the global log shows `count` events: on PostgreSQL a transaction that
 * another suite holds open on the same server keeps newer commits out of the log for a moment.
 */
async function logShows(store: EventStore, count: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await store.readAll({ after: 0, limit: count })).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(backends)('tamper evidence on %s', (_name, open) => {
  const withLog = async (work: (o: Opened) => Promise<void>) => {
    const opened = await open();
    try {
      await writeLog(opened.store);
      await logShows(opened.store, 6);
      // Every event was linked as it was written: there is nothing to seal after the fact.
      expect(await sealLog(opened.store, opened.seals)).toMatchObject({ sealed: 0, done: true });
      await work(opened);
    } finally {
      await opened.close();
    }
  };

  it('an untouched log verifies, every event linked as it commits; the digest is stable', async () => {
    await withLog(async ({ store, seals }) => {
      expect(await verifyLog(store, seals)).toEqual({
        ok: true,
        checked: 6,
        unsealed: 0,
        firstBroken: null,
        digestMatches: null,
        snapshotsChecked: 0,
        snapshotsRejected: [],
      });
      const digest = formatDigest(await logDigest(store, seals));
      expect(parseDigest(digest)).toMatchObject({ events: 6 });
      await store.append('session:acme:other', [newEvent()], { expectedVersion: 2 });
      await logShows(store, 7);
      expect(await verifyLog(store, seals, { expectedDigest: digest })).toMatchObject({ ok: true, checked: 7, unsealed: 0, digestMatches: true });
      expect(await verifyLog(store, seals, { streamPrefix: 'session:acme:' })).toMatchObject({ ok: true, checked: 7 });
      expect(formatDigest(await logDigest(store, seals))).not.toBe(digest);
    });
  });

  it('detects one altered byte of a stored event, naming the first broken link', async () => {
    await withLog(async ({ store, seals, raw }) => {
      await raw(`UPDATE events SET data = replace(data, 'Paris', 'Parjs') WHERE stream_id = 'session:acme:trip' AND stream_version = 2`);
      const result = await verifyLog(store, seals);
      expect(result).toMatchObject({ ok: false, checked: 2 });
      expect(result.firstBroken).toMatchObject({ streamId: 'session:acme:trip', streamVersion: 2, problem: expect.stringContaining('altered') });
      // Scoped to the other session, nothing is wrong; scoped to the trip or the tenant, the same link.
      expect((await verifyLog(store, seals, { streamIds: ['session:acme:other'] })).ok).toBe(true);
      expect((await verifyLog(store, seals, { streamIds: ['session:acme:trip'] })).firstBroken).toMatchObject({ streamVersion: 2 });
      expect((await verifyLog(store, seals, { streamPrefix: 'session:acme:' })).firstBroken).toMatchObject({ streamVersion: 2 });
    });
  });

  it('detects a stored type code pointed at another type (the chain covers the type as read)', async () => {
    await withLog(async ({ store, seals, raw }) => {
      await raw(
        `UPDATE events SET type_code = (SELECT code FROM event_types WHERE name = 'SessionStarted') WHERE stream_id = 'session:acme:trip' AND stream_version = 2`,
      );
      expect((await store.readStream('session:acme:trip'))[1]!.type).toBe('SessionStarted');
      const result = await verifyLog(store, seals);
      expect(result).toMatchObject({ ok: false, checked: 2 });
      expect(result.firstBroken).toMatchObject({ streamId: 'session:acme:trip', streamVersion: 2, problem: expect.stringContaining('altered') });
    });
  });

  it('detects a deleted event, in the middle or at the end of its stream', async () => {
    await withLog(async ({ store, seals, raw }) => {
      await raw(`DELETE FROM events WHERE stream_id = 'session:acme:trip' AND stream_version = 4`);
      expect((await verifyLog(store, seals, { streamPrefix: 'session:acme:' })).firstBroken).toMatchObject({
        streamId: 'session:acme:trip',
        problem: expect.stringContaining('deleted'),
      });
      await raw(`DELETE FROM events WHERE stream_id = 'session:acme:trip' AND stream_version = 3`);
      const result = await verifyLog(store, seals);
      expect(result.ok).toBe(false);
      expect(result.firstBroken).toMatchObject({ streamId: 'session:acme:trip', problem: expect.stringContaining('deleted') });
      expect((await verifyLog(store, seals, { streamIds: ['session:acme:trip'] })).firstBroken).toMatchObject({ problem: expect.stringContaining('deleted') });
    });
  });

  it('detects two events swapped in their stream', async () => {
    await withLog(async ({ store, seals, raw }) => {
      await raw(`UPDATE events SET stream_version = -1 WHERE stream_id = 'session:acme:trip' AND stream_version = 2`);
      await raw(`UPDATE events SET stream_version = 2 WHERE stream_id = 'session:acme:trip' AND stream_version = 3`);
      await raw(`UPDATE events SET stream_version = 3 WHERE stream_id = 'session:acme:trip' AND stream_version = -1`);
      for (const options of [{}, { streamIds: ['session:acme:trip'] }, { streamPrefix: 'session:acme:' }]) {
        const result = await verifyLog(store, seals, options);
        expect(result.ok).toBe(false);
        expect(result.firstBroken).toMatchObject({ streamId: 'session:acme:trip', problem: expect.stringMatching(/reordered|altered/) });
      }
    });
  });

  it("detects an event of a new session inserted below the tenant's newest events, tenant-scoped", async () => {
    await withLog(async ({ store, seals, plant }) => {
      // Written as an insider would: a copy of a real row under a new session.
      await plant();
      const result = await verifyLog(store, seals, { streamPrefix: 'session:acme:' });
      expect(result.ok).toBe(false);
      expect(result.firstBroken).toMatchObject({ streamId: 'session:acme:planted', problem: expect.stringContaining('inserted') });
      expect((await verifyLog(store, seals)).ok).toBe(false);
    });
  });

  it('raising the recorded boundary of links above an inserted event does not hide it, nor get it sealed', async () => {
    await withLog(async ({ store, seals, plant, raiseLinksFrom }) => {
      await plant();
      await raiseLinksFrom();
      for (const options of [{}, { streamPrefix: 'session:acme:' }, { streamIds: ['session:acme:planted'] }]) {
        const result = await verifyLog(store, seals, options);
        expect(result.ok).toBe(false);
        expect(result.firstBroken).toMatchObject({ streamId: 'session:acme:planted', problem: expect.stringContaining('inserted') });
      }
      // The sealer does not take it for an event written before links either.
      expect(await sealLog(store, seals)).toMatchObject({ sealed: 0, done: true });
      expect((await verifyLog(store, seals)).ok).toBe(false);
    });
  });

  it('a forger who recomputes the links too passes the chains but not a digest recorded before', async () => {
    await withLog(async ({ store, seals, raw, bytes }) => {
      const recorded = formatDigest(await logDigest(store, seals));
      await raw(`UPDATE events SET data = replace(data, 'Paris', 'Parjs') WHERE stream_id = 'session:acme:trip' AND stream_version = 2`);
      // Relink the trip from the altered event on, as someone who knows the scheme would.
      const trip = await store.readChain!({ after: 0, limit: 100, streamId: 'session:acme:trip' });
      let previous = trip[0]!.link!;
      for (const row of trip.slice(1)) {
        previous = expectedLink(row, previous);
        await raw(`UPDATE events SET link = ${bytes(previous)} WHERE stream_id = 'session:acme:trip' AND stream_version = ${row.version}`);
      }
      expect(await verifyLog(store, seals)).toMatchObject({ ok: true });
      expect(await verifyLog(store, seals, { expectedDigest: recorded })).toMatchObject({ ok: false, digestMatches: false, firstBroken: null });
    });
  });

  it('a snapshot is sealed to the chain: an altered one is not served, and verify names it', async () => {
    await withLog(async ({ store, seals, raw }) => {
      await store.saveSnapshot({ streamId: 'session:acme:trip', version: 3, reducerVersion: 1, state: { title: 'trip', version: 3 } });
      expect((await store.loadSnapshotAndTail!('session:acme:trip', 1, 4)).snapshot).toMatchObject({ version: 3, state: { title: 'trip' } });
      expect(await verifyLog(store, seals)).toMatchObject({ ok: true, snapshotsChecked: 1 });
      const before = rejectedSnapshotCount();
      await raw(`UPDATE snapshots SET state = replace(state, 'trip', 'forged') WHERE stream_id LIKE 'session:acme:trip'`);
      const read = await store.loadSnapshotAndTail!('session:acme:trip', 1, 4);
      expect(read.snapshot).toBeNull();
      expect(read.rejected).toMatchObject({ version: 3, problem: expect.stringContaining('altered') });
      expect(read.events.map((e) => e.streamVersion)).toEqual([1, 2, 3, 4]);
      expect(await store.loadSnapshot('session:acme:trip', 1, 4)).toBeNull();
      expect(rejectedSnapshotCount()).toBeGreaterThan(before);
      const result = await verifyLog(store, seals, { streamPrefix: 'session:acme:' });
      expect(result).toMatchObject({ ok: false, firstBroken: null, snapshotsChecked: 1 });
      expect(result.snapshotsRejected).toEqual([{ streamId: 'session:acme:trip', version: 3, problem: expect.stringContaining('altered') }]);
    });
  });
});

describe.each(backends)('keyed snapshot seals on %s', (_name, open) => {
  const withSnapshot = async (work: (o: Opened) => Promise<void>) => {
    const opened = await open();
    try {
      await writeLog(opened.store);
      await logShows(opened.store, 6);
      await opened.store.saveSnapshot({ streamId: 'session:acme:trip', version: 3, reducerVersion: 1, state: { title: 'trip', version: 3 } });
      await work(opened);
    } finally {
      await opened.close();
    }
  };

  it('a snapshot edited with its seal recomputed the unkeyed way is never served, and every verify reports it', async () => {
    await withSnapshot(async ({ store, seals, raw, bytes }) => {
      const digest = formatDigest(await logDigest(store, seals));
      // What a forger who knows the former scheme writes: sha256(link at the version ‖ version ‖ sha256(state JSON)).
      const forged = JSON.stringify({ title: 'forged', version: 3 });
      const link = (await store.readChain!({ after: 0, limit: 10, streamId: 'session:acme:trip' }))[2]!.link;
      await raw(`UPDATE snapshots SET state = replace(state, 'trip', 'forged') WHERE stream_id LIKE 'session:acme:trip'`);
      await raw(`UPDATE snapshots SET seal = ${bytes(snapshotSeal(link, 3, sha256Bytes(forged)))} WHERE stream_id LIKE 'session:acme:trip'`);
      const read = await store.loadSnapshotAndTail!('session:acme:trip', 1, 4);
      expect(read.snapshot).toBeNull();
      expect(read.rejected).toMatchObject({ version: 3, problem: expect.stringContaining('altered') });
      expect(await store.loadSnapshot('session:acme:trip', 1, 4)).toBeNull();
      for (const options of [{}, { streamPrefix: 'session:acme:' }, { streamIds: ['session:acme:trip'] }, { expectedDigest: digest }]) {
        const result = await verifyLog(store, seals, options);
        expect(result).toMatchObject({ ok: false, firstBroken: null, snapshotsChecked: 1 });
        expect(result.snapshotsRejected).toEqual([{ streamId: 'session:acme:trip', version: 3, problem: expect.stringContaining('altered') }]);
      }
    });
  });

  it('after a key rotation, snapshots sealed before and after are served, by this process and another', async () => {
    await withSnapshot(async (opened) => {
      const { store, seals } = opened;
      const firstKey = await store.rotateSnapshotKey!();
      await store.saveSnapshot({ streamId: 'session:acme:other', version: 2, reducerVersion: 1, state: { title: 'other', version: 2 } });
      expect((await store.loadSnapshotAndTail!('session:acme:trip', 1, 4)).snapshot).toMatchObject({ version: 3, state: { title: 'trip' } });
      expect((await store.loadSnapshotAndTail!('session:acme:other', 1, 2)).snapshot).toMatchObject({ version: 2, state: { title: 'other' } });
      // Another process that read the keys before a later rotation learns the new key at its first snapshot sealed with it.
      const other = await opened.reopen();
      try {
        expect(await store.rotateSnapshotKey!()).toBeGreaterThan(firstKey);
        await store.saveSnapshot({ streamId: 'session:acme:trip', version: 4, reducerVersion: 1, state: { title: 'trip', version: 4 } });
        expect((await other.store.loadSnapshotAndTail!('session:acme:trip', 1, 4)).snapshot).toMatchObject({ version: 4 });
        expect(await verifyLog(other.store, other.seals)).toMatchObject({ ok: true, snapshotsChecked: 3, snapshotsRejected: [] });
      } finally {
        await other.close();
      }
      expect(await verifyLog(store, seals)).toMatchObject({ ok: true, snapshotsChecked: 3 });
    });
  });
});

/** The store as the version before links saw it: no links, so it is sealed after the fact. */
const withoutLinks = (store: EventStore): EventStore =>
  new Proxy(store, {
    get: (target, property) => {
      if (property === 'readChain' || property === 'linksFrom' || property === 'checkSnapshots') return undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });

describe.each(backends)('upgrade from sealed events on %s', (_name, open) => {
  it('events sealed the old way keep verifying, a digest recorded before still matches, and new events are linked', async () => {
    const old = await open();
    let opened: Opened | null = null;
    try {
      await writeLog(old.store);
      await logShows(old.store, 6);
      // The version before links: the API sealed every event after its commit.
      expect(await sealLog(withoutLinks(old.store), old.seals)).toMatchObject({ sealed: 6 });
      const recorded = formatDigest(await logDigest(withoutLinks(old.store), old.seals));
      await old.unlink();
      // The last event was committed in the second before the old version stopped: never sealed.
      const last = (await old.store.readAll({ after: 0, limit: 10 }))[5]!;
      await old.raw(`DELETE FROM event_seals WHERE global_position = ${last.globalPosition}`);
      opened = await old.reopen();
      const { store, seals, raw } = opened;
      expect(await verifyLog(store, seals, { expectedDigest: recorded })).toMatchObject({ ok: false, digestMatches: false, checked: 5, unsealed: 1 });
      // The API's sealer seals that one when it starts, then has nothing more to do.
      expect(await sealLog(store, seals)).toMatchObject({ sealed: 1, done: true });
      expect(await verifyLog(store, seals, { expectedDigest: recorded })).toMatchObject({ ok: true, checked: 6, unsealed: 0, digestMatches: true });
      await store.append('session:acme:trip', [newEvent('MemoryWritten', { key: 'after', value: 'upgrade' })], { expectedVersion: 4 });
      await store.append('session:acme:new', [newEvent()], { expectedVersion: 'no_stream' });
      await logShows(store, 8);
      expect(await sealLog(store, seals)).toMatchObject({ sealed: 0, done: true });
      for (const options of [{}, { streamPrefix: 'session:acme:' }, { streamIds: ['session:acme:trip'] }]) {
        expect(await verifyLog(store, seals, { ...options, expectedDigest: recorded })).toMatchObject({ ok: true, unsealed: 0, digestMatches: true });
      }
      // An old event altered after the upgrade: its seal catches it.
      await raw(`UPDATE events SET data = replace(data, 'Paris', 'Parjs') WHERE stream_id = 'session:acme:trip' AND stream_version = 2`);
      expect((await verifyLog(store, seals, { streamPrefix: 'session:acme:' })).firstBroken).toMatchObject({
        streamVersion: 2,
        problem: expect.stringContaining('altered'),
      });
      // An event with neither link nor seal planted below sealed or linked ones, the boundary raised over it: inserted.
      await opened.plant();
      await opened.raiseLinksFrom();
      expect((await verifyLog(store, seals, { streamIds: ['session:acme:planted'] })).firstBroken).toMatchObject({
        streamId: 'session:acme:planted',
        problem: expect.stringContaining('inserted'),
      });
    } finally {
      await (opened ?? old).close();
      if (opened) await old.close().catch(() => undefined);
    }
  });
});

/** The store as an attacker left it: the same events, one of them changed on the way out. */
class TamperedView implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly tamper: (events: StoredEvent[]) => StoredEvent[],
  ) {}
  append: EventStore['append'] = (...a) => this.inner.append(...a);
  readStream: EventStore['readStream'] = async (...a) => this.tamper(await this.inner.readStream(...a));
  streamVersion: EventStore['streamVersion'] = (...a) => this.inner.streamVersion(...a);
  readAll = async (options: ReadAllOptions) => (options.after > 0 ? [] : this.tamper(await this.inner.readAll({ after: 0, limit: 1_000_000 })));
  lastPosition: EventStore['lastPosition'] = () => this.inner.lastPosition();
  listStreams: EventStore['listStreams'] = (...a) => this.inner.listStreams(...a);
  findIdempotency: EventStore['findIdempotency'] = (...a) => this.inner.findIdempotency(...a);
  saveSnapshot = (snapshot: Snapshot, segments?: readonly SnapshotSegment[]) => this.inner.saveSnapshot(snapshot, segments);
  loadSnapshot: EventStore['loadSnapshot'] = (...a) => this.inner.loadSnapshot(...a);
  close = () => this.inner.close();
}

describe('tamper evidence (property)', () => {
  it('any single alteration, deletion or swap of sealed events is detected, and an untouched log always verifies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.string({ maxLength: 8 })), { minLength: 2, maxLength: 30 }),
        fc.nat(),
        fc.constantFrom('alter', 'delete', 'swap'),
        async (steps, pick, kind) => {
          const store = new InMemoryEventStore();
          for (const [session, value] of steps) {
            const stream = `session:t:s${session}`;
            await store.append(stream, [newEvent('MemoryWritten', { value })], { expectedVersion: 'any' });
          }
          const seals = new InMemorySealStore();
          await sealLog(store, seals);
          expect((await verifyLog(store, seals)).ok).toBe(true);
          const all = await store.readAll({ after: 0, limit: 1000 });
          const i = pick % all.length;
          const tampered = new TamperedView(store, (events) => {
            const out = events.map((e) => ({ ...e }));
            const at = out.findIndex((e) => e.eventId === all[i]!.eventId);
            if (at < 0) return out;
            if (kind === 'alter') out[at] = { ...out[at]!, data: { value: `${JSON.stringify(out[at]!.data)}!` } };
            if (kind === 'delete') out.splice(at, 1);
            if (kind === 'swap') {
              const j = out.findIndex((e, k) => k !== at && e.streamId === out[at]!.streamId);
              if (j < 0) out[at] = { ...out[at]!, type: `${out[at]!.type}x` };
              else [out[at]!.streamVersion, out[j]!.streamVersion] = [out[j]!.streamVersion, out[at]!.streamVersion];
            }
            return out;
          });
          const result = await verifyLog(tampered, seals);
          expect(result.ok).toBe(false);
          expect(result.firstBroken).not.toBeNull();
          const scoped = await verifyLog(tampered, seals, { streamIds: [all[i]!.streamId] });
          expect(scoped.ok).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });
});
