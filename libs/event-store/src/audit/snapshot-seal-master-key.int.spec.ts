import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { EventStore } from '../event-store';
import { PostgresSealStore } from '../postgres/postgres-seal-store';
import { useTestDatabase } from '../postgres/test-database';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import { SqliteSealStore } from '../sqlite/sqlite-seal-store';
import { newEvent } from '../testing/event-store.contract';
import { sha256Bytes, snapshotSeal } from './audit-chain';
import { verifyLog } from './audit-log';
import type { SealStore } from './seal-store';
import { snapshotTag } from './snapshot-keys';

const db = useTestDatabase();

/** One store's database, opened by processes with or without a master key. */
interface Database_ {
  open(masterKey?: Buffer): Promise<{ store: EventStore; seals: SealStore; close(): Promise<void> }>;
  /** The stored snapshot keys (what someone reading the database alone has). */
  storedSecrets(): Promise<Buffer[]>;
  /** Sets the trip's snapshot at version 3 to this state and seal, as someone writing the database alone would. */
  forge(stateJson: string, seal: Buffer): Promise<void>;
  dispose(): Promise<void>;
}

const backends: [string, () => Promise<Database_>][] = [
  [
    'SQLite',
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'rewind-seal-master-')), 'rewind.db');
      const raw = <T>(work: (conn: Database.Database) => T): T => {
        const conn = new Database(file);
        try {
          return work(conn);
        } finally {
          conn.close();
        }
      };
      return {
        open: async (masterKey) => {
          const store = new SqliteEventStore({ filename: file, ...(masterKey ? { masterKey } : {}) });
          const seals = new SqliteSealStore(file);
          return { store, seals, close: async () => (await seals.close(), await store.close()) };
        },
        storedSecrets: async () => raw((conn) => conn.prepare<[], Buffer>('SELECT secret FROM snapshot_keys').pluck().all()),
        forge: async (stateJson, seal) =>
          raw((conn) => {
            conn.prepare("UPDATE snapshots SET state = ?, seal = ? WHERE stream_id = 'session:acme:trip' AND version = 3").run(stateJson, seal);
          }),
        dispose: async () => undefined,
      };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `seal_master_${randomBytes(3).toString('hex')}`;
      // Opened first (it creates the schema); its pool plays the one with the database alone.
      const first = await db.openStore({ schema });
      const pool = first.pool;
      return {
        open: async (masterKey) => {
          const store = masterKey ? await db.openStore({ schema, masterKey }) : await db.openStore({ schema });
          const seals = new PostgresSealStore(store.pool, store.schema);
          return { store, seals, close: () => store.close() };
        },
        storedSecrets: async () => (await pool.query<{ secret: Buffer }>(`SELECT secret FROM "${schema}".snapshot_keys`)).rows.map((r) => r.secret),
        forge: async (stateJson, seal) => {
          await pool.query(
            `UPDATE "${schema}".snapshots SET state = $1::json, state_deflated = NULL, seal = $2 WHERE stream_id = 'session:acme:trip' AND version = 3`,
            [stateJson, seal],
          );
        },
        dispose: () => first.close(),
      };
    },
  ],
];

async function writeTrip(store: EventStore): Promise<void> {
  await store.append('session:acme:trip', [newEvent('SessionStarted', { title: 'trip' })], { expectedVersion: 'no_stream' });
  await store.append('session:acme:trip', [newEvent('MemoryWritten', { key: 'destination', value: 'Paris' })], { expectedVersion: 1 });
  await store.append('session:acme:trip', [newEvent('MemoryWritten', { key: 'hotel', value: 'Ritz' })], { expectedVersion: 2 });
  for (let i = 0; i < 300 && (await store.readAll({ after: 0, limit: 3 })).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
}

const trip = (store: EventStore) => store.loadSnapshotAndTail!('session:acme:trip', 1, 3);

describe.each(backends)('snapshot seals under REWIND_MASTER_KEY on %s', (_name, make) => {
  it('someone with the database alone (stored keys included) cannot seal a state that is served; verify stays clean, and a seal under no key is reported', async () => {
    const database = await make();
    const masterKey = randomBytes(32);
    const api = await database.open(masterKey);
    try {
      await writeTrip(api.store);
      await api.store.saveSnapshot({ streamId: 'session:acme:trip', version: 3, reducerVersion: 1, state: { title: 'trip', version: 3 } });
      expect((await trip(api.store)).snapshot).toMatchObject({ version: 3, state: { title: 'trip' } });
      // The forger reads the stored key and seals an edited state with it, as the keyed scheme without a master key would.
      const forged = JSON.stringify({ title: 'forged', version: 3 });
      const link = (await api.store.readChain!({ after: 0, limit: 10, streamId: 'session:acme:trip' }))[2]!.link;
      const [stored] = await database.storedSecrets();
      await database.forge(forged, snapshotSeal(link, 3, snapshotTag(stored!, 'session:acme:trip', 1, 3, sha256Bytes(forged))));
      const read = await trip(api.store);
      expect(read.snapshot).toBeNull();
      expect(read.events.map((e) => e.streamVersion)).toEqual([1, 2, 3]);
      // Sealed with a stored key alone: a stale cache, as one sealed before the master key was set — refused, not a finding.
      expect(read.rejected).toBeUndefined();
      expect(await verifyLog(api.store, api.seals)).toMatchObject({ ok: true, snapshotsChecked: 1, snapshotsRejected: [] });
      // A seal made with neither the stored key nor the master key is reported, as before.
      await database.forge(forged, randomBytes(32));
      expect((await trip(api.store)).rejected).toMatchObject({ version: 3, problem: expect.stringContaining('altered') });
      expect(await verifyLog(api.store, api.seals)).toMatchObject({ ok: false, snapshotsRejected: [{ streamId: 'session:acme:trip', version: 3 }] });
    } finally {
      await api.close();
      await database.dispose();
    }
  });

  it('snapshots sealed before the master key was set are replayed past, not reported; those sealed after are served by every process with the key', async () => {
    const database = await make();
    const before = await database.open();
    try {
      await writeTrip(before.store);
      await before.store.saveSnapshot({ streamId: 'session:acme:trip', version: 2, reducerVersion: 1, state: { title: 'trip', version: 2 } });
      expect((await trip(before.store)).snapshot).toMatchObject({ version: 2 });
    } finally {
      await before.close();
    }
    const masterKey = randomBytes(32);
    const api = await database.open(masterKey);
    const other = await database.open(Buffer.from(masterKey));
    try {
      const read = await trip(api.store);
      expect(read).toMatchObject({ snapshot: null });
      expect(read.rejected).toBeUndefined();
      expect(read.events.map((e) => e.streamVersion)).toEqual([1, 2, 3]);
      expect(await verifyLog(api.store, api.seals)).toMatchObject({ ok: true, snapshotsChecked: 1, snapshotsRejected: [] });
      await api.store.saveSnapshot({ streamId: 'session:acme:trip', version: 3, reducerVersion: 1, state: { title: 'trip', version: 3 } });
      expect((await trip(other.store)).snapshot).toMatchObject({ version: 3, state: { title: 'trip' } });
      expect(await verifyLog(other.store, other.seals)).toMatchObject({ ok: true, snapshotsChecked: 2, snapshotsRejected: [] });
    } finally {
      await other.close();
      await api.close();
    }
    // A process without the master key cannot vouch for those seals: it does not serve them.
    const without = await database.open();
    try {
      expect((await trip(without.store)).snapshot).toBeNull();
    } finally {
      await without.close();
      await database.dispose();
    }
  });
});
