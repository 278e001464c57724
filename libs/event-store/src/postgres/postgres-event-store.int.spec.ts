import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ConcurrencyError, IdempotencyKeyReusedError, type AppendResult, type StoredEvent } from '../event-store';
import { describeEventStoreContract, newEvent } from '../testing/event-store.contract';
import { expectTypeNamesRoundTrip } from '../testing/type-names.property';
import { migrations as allMigrations } from './migrations';
import { maskConnectionString, PostgresEventStore, PostgresUnavailableError } from './postgres-event-store';
import { testDatabaseUrl } from '../testing/postgres-test-database';
import { useTestDatabase } from './test-database';
import { storedIdempotencyKey } from '../idempotency-key';

const db = useTestDatabase();
const openStore = db.openStore;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The global log from the start, once it holds `count` events. Committed events become
 * readable when no older transaction of this database is still open (a spec's own writers).
 */
async function readAllOnce(store: PostgresEventStore, count: number, limit = 10_000): Promise<StoredEvent[]> {
  let all = await store.readAll({ after: 0, limit });
  for (const deadline = Date.now() + 20_000; all.length < count && Date.now() < deadline; await sleep(50)) all = await store.readAll({ after: 0, limit });
  return all;
}

describeEventStoreContract('PostgresEventStore', () => openStore());

describe('PostgresEventStore global order without holes', () => {
  it('holds back a committed event behind an older transaction that is still open', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    const store = await openStore({
      visibilityWaitMs: 20,
      beforeCommit: async (streamId) => {
        if (streamId !== 'A') return;
        entered();
        await gate;
      },
    });
    try {
      const a = store.append('A', [newEvent()], { expectedVersion: 'no_stream' });
      await inFlight; // A has written its event (position drawn) and has not committed.
      await store.append('B', [newEvent()], { expectedVersion: 'no_stream' });

      // A plain "ORDER BY position" reader would already see B and step past A's position.
      const plain = await store.pool.query<{ stream_id: string }>(
        `SELECT st.stream_id FROM "${store.schema}".events e JOIN "${store.schema}".streams st ON st.id = e.stream_key ORDER BY e.global_position`,
      );
      expect(plain.rows.map((r) => r.stream_id)).toEqual(['B']);

      expect(await store.readAll({ after: 0, limit: 10 })).toEqual([]);
      expect(await store.lastPosition()).toBe(0);

      release();
      await a;
      const all = await readAllOnce(store, 2, 10);
      expect(all.map((e) => e.streamId)).toEqual(['A', 'B']);
      expect(all[0]!.globalPosition).toBeLessThan(all[1]!.globalPosition);
      expect(await store.lastPosition()).toBe(all[1]!.globalPosition);
    } finally {
      release();
      await store.close();
    }
  });

  it('is not held back by a transaction left open in another database of the same server (issue 38)', async () => {
    // The server's snapshot xmin counts every database's transactions: a reader bounded by it
    // waited for as long as another database's transaction ran.
    const elsewhere = new pg.Client({ connectionString: testDatabaseUrl('postgres') });
    await elsewhere.connect();
    const store = await openStore({ visibilityWaitMs: 0 });
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()'); // an id, as a writing transaction has
      await store.append('A', [newEvent()], { expectedVersion: 'no_stream' });
      const page = await store.readAll({ after: 0, limit: 10 });
      expect(page.map((e) => e.streamId)).toEqual(['A']);
      expect(await store.lastPosition()).toBe(page[0]!.globalPosition);

      // A transaction of this database, with an id older than the append's, still holds it back.
      const here = new pg.Client({ connectionString: db.url });
      await here.connect();
      try {
        await here.query('BEGIN');
        await here.query('SELECT pg_current_xact_id()');
        await store.append('B', [newEvent()], { expectedVersion: 'no_stream' });
        expect((await store.readAll({ after: page[0]!.globalPosition, limit: 10 })).map((e) => e.streamId)).toEqual([]);
        await here.query('COMMIT');
        expect((await store.readAll({ after: page[0]!.globalPosition, limit: 10 })).map((e) => e.streamId)).toEqual(['B']);
      } finally {
        await here.end();
      }
    } finally {
      await elsewhere.query('ROLLBACK').catch(() => undefined);
      await elsewhere.end();
      await store.close();
    }
  });

  it('waits briefly so that a reader sees events that committed before it asked', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    const store = await openStore({
      visibilityWaitMs: 2_000,
      beforeCommit: async (streamId) => {
        if (streamId !== 'A') return;
        entered();
        await gate;
      },
    });
    try {
      const a = store.append('A', [newEvent()], { expectedVersion: 'no_stream' });
      await inFlight;
      await store.append('B', [newEvent()], { expectedVersion: 'no_stream' });
      setTimeout(release, 30);
      const [page, last] = await Promise.all([store.readAll({ after: 0, limit: 10 }), store.lastPosition()]);
      expect(page.map((e) => e.streamId)).toEqual(['A', 'B']);
      expect(last).toBe(page[1]!.globalPosition);
      await a;
    } finally {
      release();
      await store.close();
    }
  });

  it('lets a polling subscriber see every committed event exactly once, in order, while 16 writers commit out of order', async () => {
    const WRITERS = 16;
    const APPENDS = 40;
    const abort = new Map<string, boolean>();
    const writer = await openStore({
      poolSize: WRITERS + 2,
      beforeCommit: async (streamId) => {
        await sleep(Math.random() * 8); // hold the transaction open after its positions are drawn
        if (abort.get(streamId)) throw new Error('test abort');
      },
    });
    const reader = await PostgresEventStore.open({ connectionString: db.url, schema: writer.schema, poolSize: 2, visibilityWaitMs: 5 });
    const committed = new Map<string, number>(); // eventId -> order in which its append resolved
    const aborted = new Set<string>();
    let resolvedCount = 0;
    let writersDone = false;
    const seen: StoredEvent[] = [];
    try {
      const subscriber = (async () => {
        let checkpoint = 0;
        for (;;) {
          const page = await reader.readAll({ after: checkpoint, limit: 17 });
          for (const event of page) {
            seen.push(event);
            checkpoint = event.globalPosition;
          }
          if (page.length === 0) {
            // Once the writers are done, poll until everything committed is seen (a real hole
            // would never show up and time the test out).
            if (writersDone && seen.length >= committed.size) return;
            await sleep(Math.random() * 3);
          }
        }
      })();
      await Promise.all(
        Array.from({ length: WRITERS }, async (_, w) => {
          for (let i = 0; i < APPENDS; i++) {
            const streamId = `holes:${w}:${i % 3}`;
            const events = Array.from({ length: 1 + (i % 3) }, () => newEvent());
            const fail = Math.random() < 0.1;
            abort.set(streamId, fail);
            try {
              await writer.append(streamId, events, { expectedVersion: 'any' });
              const order = resolvedCount++;
              for (const e of events) committed.set(e.eventId, order);
            } catch (error) {
              expect((error as Error).message).toBe('test abort');
              for (const e of events) aborted.add(e.eventId);
            }
          }
        }),
      );
      writersDone = true;
      await subscriber;

      const positions = seen.map((e) => e.globalPosition);
      for (let i = 1; i < positions.length; i++) expect(positions[i]!).toBeGreaterThan(positions[i - 1]!);
      const seenIds = seen.map((e) => e.eventId);
      expect(new Set(seenIds).size).toBe(seenIds.length);
      expect(seenIds.length).toBe(committed.size);
      expect(seenIds.every((id) => committed.has(id) && !aborted.has(id))).toBe(true);
      expect(aborted.size).toBeGreaterThan(0);

      // The scenario really did commit out of position order: some append that resolved later
      // holds a smaller position than one that resolved earlier.
      const firstPositionByOrder = new Map<number, number>();
      for (const e of seen) {
        const order = committed.get(e.eventId)!;
        if (!firstPositionByOrder.has(order)) firstPositionByOrder.set(order, e.globalPosition);
      }
      const byCommit = [...firstPositionByOrder.entries()].sort((x, y) => x[0] - y[0]).map(([, p]) => p);
      let inversions = 0;
      for (let i = 1, max = byCommit[0]!; i < byCommit.length; i++) {
        if (byCommit[i]! < max) inversions++;
        max = Math.max(max, byCommit[i]!);
      }
      expect(inversions).toBeGreaterThan(0);
    } finally {
      writersDone = true;
      await reader.close();
      await writer.close();
    }
  });
});

describe('PostgresEventStore on PostgreSQL', () => {
  it('creates its schema idempotently: opening twice, or concurrently, keeps one migration and the data', async () => {
    const schema = `idem_${randomBytes(3).toString('hex')}`;
    const first = await PostgresEventStore.open({ connectionString: db.url, schema });
    await first.append('session:t:s', [newEvent()], { expectedVersion: 'no_stream' });
    await first.close();
    const again = await Promise.all(Array.from({ length: 4 }, () => PostgresEventStore.open({ connectionString: db.url, schema })));
    try {
      expect(await again[0]!.streamVersion('session:t:s')).toBe(1);
      const migrations = await again[0]!.pool.query<{ version: number }>(`SELECT version FROM "${schema}".schema_migrations`);
      expect(migrations.rows.map((r) => r.version).sort((a, b) => a - b)).toEqual(allMigrations('"x"').map((m) => m.version));
    } finally {
      await Promise.all(again.map((s) => s.close()));
    }
    const fresh = `conc_${randomBytes(3).toString('hex')}`;
    const concurrent = await Promise.all(Array.from({ length: 4 }, () => PostgresEventStore.open({ connectionString: db.url, schema: fresh })));
    await Promise.all(concurrent.map((s) => s.close()));
  });

  it('reports an unreachable server with a clean message that masks the password', async () => {
    const attempt = PostgresEventStore.open({ connectionString: 'postgres://rewind:s3cret@127.0.0.1:1/rewind', connectionTimeoutMs: 5_000 });
    const error = (await attempt.catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(PostgresUnavailableError);
    expect(error.message).toBe(
      'Cannot reach PostgreSQL at postgres://rewind:***@127.0.0.1:1/rewind (ECONNREFUSED). Is the server running and reachable? Set DATABASE_URL to point at it.',
    );
    expect(error.message).not.toContain('s3cret');
  });

  it('reports a missing database clearly', async () => {
    const url = new URL(testDatabaseUrl(`rewind_missing_${randomBytes(3).toString('hex')}`));
    url.password = 'hunter2';
    const error = (await PostgresEventStore.open({ connectionString: url.toString() }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(PostgresUnavailableError);
    expect(error.message).toMatch(/has no such database \(3D000/);
    expect(error.message).toContain(':***@');
    expect(error.message).not.toContain('hunter2');
  });

  it('masks passwords in URLs and key=value connection strings', () => {
    expect(maskConnectionString('postgres://u:p%40ss@h:5432/d?sslmode=require')).toBe('postgres://u:***@h:5432/d?sslmode=require');
    expect(maskConnectionString('postgres://u@h/d')).toBe('postgres://u@h/d');
    expect(maskConnectionString('host=h user=u password=secret dbname=d')).toBe('host=h user=u password=*** dbname=d');
  });

  it('reads the log by its index even with plans made while the log was small (no scan of the whole log on every read)', async () => {
    // One connection: the plan cached by the reads below is the one EXPLAIN shows. Without
    // ANALYZE nothing replans it, and a scan chosen for a few rows would read the whole log later.
    const store = await openStore({ poolSize: 1 });
    try {
      await store.append('plan:1', [newEvent(), newEvent(), newEvent()], { expectedVersion: 'no_stream' });
      for (let i = 0; i < 8; i++) await store.readAll({ after: 0, limit: 10 });
      const name = `rewind:"${store.schema}":readAll`.replace(/"/g, '""');
      const { rows } = await store.pool.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) EXECUTE "${name}"(0, 10, 0)`);
      const plan = JSON.stringify(rows[0]!['QUERY PLAN']);
      expect(plan).toContain('"Index Name":"events_pk"');
      expect(plan).not.toContain('"Node Type":"Seq Scan"');
    } finally {
      await store.close();
    }
  });

  it('serves 50 concurrent appends to 50 streams through a pool of 10', async () => {
    const store = await openStore({ poolSize: 10 });
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.append(`pool:${i}`, [newEvent(), newEvent()], { expectedVersion: 'no_stream' })),
      );
      expect(results.every((r) => r.firstVersion === 1 && r.lastVersion === 2 && !r.duplicate)).toBe(true);
      const all = await readAllOnce(store, 100, 1_000);
      expect(all).toHaveLength(100);
      expect(new Set(all.map((e) => e.globalPosition)).size).toBe(100);
      expect(typeof all[0]!.globalPosition).toBe('number');
      expect(typeof all[0]!.streamVersion).toBe('number');
    } finally {
      await store.close();
    }
  });

  it('settles a race between identical keyed requests: one appends, the others answer as duplicates', async () => {
    const store = await openStore({ poolSize: 12 });
    try {
      for (const expectedVersion of ['any', 'no_stream'] as const) {
        const stream = `race:${randomUUID()}`;
        const claim = { scope: 't1', key: `k-${randomUUID()}`, fingerprint: 'same request' };
        const results = await Promise.all(
          Array.from({ length: 12 }, () => store.append(stream, [newEvent(), newEvent()], { expectedVersion, idempotency: claim })),
        );
        expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
        expect(results.every((r: AppendResult) => r.streamId === stream && r.firstVersion === 1 && r.lastVersion === 2)).toBe(true);
        expect(await store.streamVersion(stream)).toBe(2);
      }
      // Same key on different streams, different requests: one wins, the others are refused.
      const claim = { scope: 't1', key: `k-${randomUUID()}` };
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          store.append(`race:${randomUUID()}`, [newEvent()], { expectedVersion: 'any', idempotency: { ...claim, fingerprint: `request ${i}` } }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'rejected').every((o) => (o as PromiseRejectedResult).reason instanceof IdempotencyKeyReusedError)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('maps a unique violation on (stream, version) to ConcurrencyError', async () => {
    const store = await openStore();
    try {
      await store.append('collide', [newEvent()], { expectedVersion: 'no_stream' });
      // A row written behind the store's back at the version the next append will take.
      await store.pool.query(
        `INSERT INTO "${store.schema}".events (global_position, stream_key, stream_version, event_uuid, type, data, metadata)
         VALUES (9007199254740000, (SELECT id FROM "${store.schema}".streams WHERE stream_id = 'collide'), 2, $1, 'X', '{}', '{}')`,
        [randomUUID()],
      );
      const error = await store.append('collide', [newEvent()], { expectedVersion: 'any' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect(error).toMatchObject({ actual: 1 });
    } finally {
      await store.close();
    }
  });

  it('stores only a hash of each Idempotency-Key, and still recognises the retry (single and batched appends)', async () => {
    const store = await openStore();
    try {
      const claim = { scope: 't', key: 'refund-order-4711-alice@example.com', fingerprint: 'F' };
      const first = await store.append('idem', [newEvent()], { expectedVersion: 'no_stream', idempotency: claim });
      expect(await store.append('idem', [newEvent()], { expectedVersion: 'any', idempotency: claim })).toEqual({ ...first, duplicate: true });
      await expect(store.append('idem', [newEvent()], { expectedVersion: 'any', idempotency: { ...claim, fingerprint: 'G' } })).rejects.toThrow(
        /refund-order-4711/,
      );
      const concurrent = Array.from({ length: 4 }, (_, i) => ({ scope: 't', key: `batch-${i}-bob@example.com`, fingerprint: 'F' }));
      await Promise.all(concurrent.map((c, i) => store.append(`idem-${i}`, [newEvent()], { expectedVersion: 'no_stream', idempotency: c })));
      const { rows } = await store.pool.query<{ key: string }>(`SELECT key FROM "${store.schema}".idempotency_keys ORDER BY key`);
      expect(rows.map((r) => r.key).sort()).toEqual([claim, ...concurrent].map((c) => storedIdempotencyKey(c.key)).sort());
      expect(JSON.stringify(rows)).not.toContain('@example.com');
    } finally {
      await store.close();
    }
  });

  it('stores JSON text exactly: key order and \\u0000 survive', async () => {
    const store = await openStore();
    try {
      const event = newEvent('ToolCallSucceeded', { z: 1, a: 'nul\u0000byte', m: { y: [2, 1], b: null } });
      await store.append('json', [event], { expectedVersion: 'no_stream' });
      const [read] = await store.readStream('json');
      expect(JSON.stringify(read!.data)).toBe(JSON.stringify(event.data));
      expect(JSON.stringify(read!.metadata)).toBe(JSON.stringify(event.metadata));
      await store.saveSnapshot({ streamId: 'json', version: 1, reducerVersion: 1, state: { z: 'x\u0000', a: 1 } });
      expect(JSON.stringify((await store.loadSnapshot('json', 1, 1))!.state)).toBe(JSON.stringify({ z: 'x\u0000', a: 1 }));
    } finally {
      await store.close();
    }
  });

  it('orders listStreams by code point (COLLATE "C"), like the SQLite adapter', async () => {
    const store = await openStore();
    try {
      const prefix = 'list:';
      for (const id of ['b', 'B', 'a', 'é', '_', 'Z']) await store.append(prefix + id, [newEvent()], { expectedVersion: 'no_stream' });
      const listed = (await store.listStreams({ prefix, limit: 10 })).map((s) => s.streamId.slice(prefix.length));
      expect(listed).toEqual(['B', 'Z', '_', 'a', 'b', 'é']);
      const [summary] = await store.listStreams({ prefix, limit: 1 });
      expect(summary!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    } finally {
      await store.close();
    }
  });
});

describe('PostgresEventStore event type codes', () => {
  it('gives back any type name as it was given, through every read (property)', async () => {
    const store = await openStore();
    try {
      await expectTypeNamesRoundTrip(store, 40);
    } finally {
      await store.close();
    }
  });
});

describe('PostgresEventStore group commit', () => {
  /** Transactions that wrote events: a group-committed batch shares one. */
  const transactions = async (store: PostgresEventStore) =>
    Number((await store.pool.query(`SELECT count(DISTINCT global_position >> 16) AS n FROM "${store.schema}".events`)).rows[0].n);

  it('commits concurrent appends to many streams together, each with its own versions and positions', async () => {
    const store = await openStore({ poolSize: 2 });
    try {
      const streams = Array.from({ length: 40 }, (_, i) => `gc-${i}`);
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          streams.map((s, i) =>
            store.append(s, [newEvent(), ...(i % 3 === 0 ? [newEvent()] : [])], { expectedVersion: round === 0 ? 'no_stream' : round * (i % 3 === 0 ? 2 : 1) }),
          ),
        );
        results.forEach((r, i) => {
          const width = i % 3 === 0 ? 2 : 1;
          expect(r).toEqual({ streamId: streams[i], firstVersion: round * width + 1, lastVersion: (round + 1) * width, duplicate: false });
        });
      }
      const all = await readAllOnce(store, 3 * (40 + 14));
      expect(all).toHaveLength(3 * (40 + 14));
      const positions = all.map((e) => e.globalPosition);
      expect(new Set(positions).size).toBe(positions.length);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      for (const [i, s] of streams.entries()) {
        expect((await store.readStream(s)).map((e) => e.streamVersion)).toEqual(i % 3 === 0 ? [1, 2, 3, 4, 5, 6] : [1, 2, 3]);
      }
      // 120 appends with one connection for appends: far fewer transactions than appends.
      expect(await transactions(store)).toBeLessThan(60);
    } finally {
      await store.close();
    }
  });

  it('answers each append in a batch for itself: conflicts, duplicates and reused keys do not stop the others', async () => {
    const store = await openStore({ poolSize: 2 });
    try {
      await store.append('taken', [newEvent()], { expectedVersion: 'no_stream' });
      const keyed = { scope: 'acme', key: 'k-1', fingerprint: 'f-1' };
      const first = await store.append('keyed', [newEvent()], { expectedVersion: 'any', idempotency: keyed });
      const outcomes = await Promise.allSettled([
        store.append('fresh-a', [newEvent()], { expectedVersion: 'no_stream' }),
        store.append('taken', [newEvent()], { expectedVersion: 'no_stream' }), // conflict
        store.append('keyed', [newEvent()], { expectedVersion: 'any', idempotency: keyed }), // duplicate
        store.append('keyed', [newEvent()], { expectedVersion: 'any', idempotency: { ...keyed, fingerprint: 'other' } }), // reused
        store.append('fresh-b', [newEvent(), newEvent()], { expectedVersion: 'any' }),
      ]);
      expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { streamId: 'fresh-a', firstVersion: 1, lastVersion: 1, duplicate: false } });
      expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: expect.any(ConcurrencyError) });
      expect(outcomes[2]).toMatchObject({ status: 'fulfilled', value: { ...first, duplicate: true } });
      expect(outcomes[3]).toMatchObject({ status: 'rejected', reason: expect.any(IdempotencyKeyReusedError) });
      expect(outcomes[4]).toMatchObject({ status: 'fulfilled', value: { streamId: 'fresh-b', firstVersion: 1, lastVersion: 2 } });
      expect(await store.streamVersion('taken')).toBe(1);
      expect(await store.streamVersion('keyed')).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('when the server refuses a batch (a duplicate event id), every other append still lands, alone', async () => {
    const store = await openStore({ poolSize: 2 });
    try {
      const reused = newEvent();
      await store.append('first', [reused], { expectedVersion: 'no_stream' });
      const outcomes = await Promise.allSettled([
        store.append('ok-1', [newEvent()], { expectedVersion: 'no_stream' }),
        store.append('bad', [{ ...reused }], { expectedVersion: 'no_stream' }),
        store.append('ok-2', [newEvent()], { expectedVersion: 'no_stream' }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason.message).toMatch(/Duplicate event id/);
      expect(await store.streamVersion('ok-1')).toBe(1);
      expect(await store.streamVersion('ok-2')).toBe(1);
      expect(await store.streamVersion('bad')).toBe(0);
    } finally {
      await store.close();
    }
  });
});
