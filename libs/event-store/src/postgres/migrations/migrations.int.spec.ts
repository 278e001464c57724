import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newEvent } from '../../testing/event-store.contract';
import { encodeMetadata } from '../../metadata-codec';
import { PostgresEventStore } from '../postgres-event-store';
import { useTestDatabase } from '../test-database';

const db = useTestDatabase();
const openStore = db.openStore;
// Only this spec's database's transactions can hold its readers back (other suites run in their own
// databases): the default wait for its own commits is enough.
const visibilityWaitMs = 100;

describe('PostgresEventStore schema upgrades', () => {
  it('migration 2 keeps every event of a version-1 schema readable as it was, and appends continue after it', async () => {
    const schema = `up_${randomBytes(3).toString('hex')}`;
    const old = await PostgresEventStore.open({ connectionString: db.url, schema, visibilityWaitMs, migrateTo: 1 });
    const s = `"${schema}"`;
    const { xid_origin: origin } = (await old.pool.query<{ xid_origin: number }>(`SELECT xid_origin FROM ${s}.store_info`)).rows[0]!;
    // Rows as version 1 wrote them, through its own function: text event ids (UUIDs and others),
    // metadata in the long form and in the first short form, parents, several streams.
    const longForm = {
      tenantId: 't1',
      sessionId: 'a',
      commandId: 'cmd-1',
      causationId: null,
      correlationId: 'cmd-1',
      actor: 'x',
      occurredAt: '2025-01-01T00:00:00.000Z',
      schemaVersion: 1,
    };
    const shortForm = { t: 't1', s: 'a', c: randomUUID(), a: 'y', o: '2025-01-02T00:00:00.000Z', r: 'corr' };
    const legacyId = 'legacy-id-1';
    const uuidId = randomUUID();
    const upperId = randomUUID().toUpperCase();
    const v1Append = (streamId: string, ids: string[], metadata: object[], parents: (number | null)[]) =>
      old.pool.query(
        `SELECT o_outcome FROM ${s}.append_events($1::text, NULL, $2::text[], $3::text[], $4::bigint[], $5::json[], $6::json[], $7::bigint, NULL, NULL, NULL)`,
        [streamId, ids, ids.map(() => 'MemoryWritten'), parents, ids.map((id) => JSON.stringify({ id })), metadata.map((m) => JSON.stringify(m)), origin],
      );
    await v1Append('session:t1:a', [legacyId, uuidId], [longForm, shortForm], [null, 1]);
    await v1Append('tool:t1:search', [upperId], [shortForm], [null]);
    await v1Append('session:t1:a', [randomUUID()], [shortForm], [2]);
    const before = {
      a: await old.pool.query(`SELECT * FROM ${s}.events ORDER BY global_position`),
      streams: await old.pool.query(`SELECT stream_id, version FROM ${s}.streams ORDER BY stream_id`),
    };
    await old.close();

    const store = await PostgresEventStore.open({ connectionString: db.url, schema, visibilityWaitMs });
    try {
      const all = await store.readAll({ after: 0, limit: 100 });
      expect(all.map((e) => [e.globalPosition, e.streamId, e.streamVersion, e.eventId, e.type, e.parentVersion, e.data])).toEqual(
        before.a.rows.map((r: Record<string, unknown>) => [r.global_position, r.stream_id, r.stream_version, r.event_id, r.type, r.parent_version, r.data]),
      );
      expect(all[0]!.metadata).toEqual(longForm);
      expect(all[1]!.metadata).toEqual({ ...longForm, commandId: shortForm.c, correlationId: 'corr', actor: 'y', occurredAt: shortForm.o });
      expect(all.map((e) => e.eventId).slice(0, 3)).toEqual([legacyId, uuidId, upperId]);
      expect((await store.readStream('session:t1:a')).map((e) => e.streamVersion)).toEqual([1, 2, 3]);
      expect((await store.pool.query(`SELECT stream_id, version FROM ${s}.streams ORDER BY stream_id`)).rows).toEqual(before.streams.rows);
      // Event ids stay unique across the old rows, whichever column they went to.
      for (const id of [legacyId, uuidId, upperId]) {
        await expect(store.append('session:t1:b', [{ ...newEvent(), eventId: id }], { expectedVersion: 'any' })).rejects.toThrow(/Duplicate event id/);
      }
      const next = await store.append('session:t1:a', [newEvent()], { expectedVersion: 3 });
      expect(next).toMatchObject({ firstVersion: 4, lastVersion: 4 });
      const after = await store.readAll({ after: all[all.length - 1]!.globalPosition, limit: 10 });
      expect(after.map((e) => [e.streamId, e.streamVersion])).toEqual([['session:t1:a', 4]]);
    } finally {
      await store.close();
    }
  });

  it('migration 6 keeps the JSON snapshots of a version-5 schema readable (migration 8 no longer serves them: unsealed; migration 9 drops them: caches sealed without a key); larger states are then stored deflated, small ones as JSON', async () => {
    const schema = `up_${randomBytes(3).toString('hex')}`;
    const s = `"${schema}"`;
    const old = await PostgresEventStore.open({ connectionString: db.url, schema, visibilityWaitMs, migrateTo: 5 });
    const oldState = { turns: Array.from({ length: 50 }, (_, i) => ({ i, text: `turn ${i} \u0000 é` })) };
    // As version 5 wrote it: the state as JSON, whatever its size.
    await old.pool.query(`INSERT INTO ${s}.snapshots (stream_id, reducer_version, version, state, created_at) VALUES ($1, 1, 1, $2::json, now())`, [
      'session:t:a',
      JSON.stringify(oldState),
    ]);
    await old.close();
    const before9 = await PostgresEventStore.open({ connectionString: db.url, schema, visibilityWaitMs, migrateTo: 8 });
    const legacy = await before9.pool.query<{ state: string }>(`SELECT state::text AS state FROM ${s}.snapshots WHERE stream_id = 'session:t:a'`);
    expect(JSON.parse(legacy.rows[0]!.state)).toEqual(oldState);
    await before9.close();

    const store = await PostgresEventStore.open({ connectionString: db.url, schema, visibilityWaitMs });
    try {
      await store.append('session:t:a', [newEvent(), newEvent()], { expectedVersion: 'no_stream' });
      // Written before snapshots were sealed (migration 8): readable, but not served (a cache miss; the events are replayed).
      expect(await store.loadSnapshot('session:t:a', 1, 5)).toBeNull();
      const restored = await store.loadSnapshotAndTail('session:t:a', 1, 5);
      expect(restored).toMatchObject({ snapshot: null });
      expect(restored.rejected).toBeUndefined();
      expect(restored.events.map((e) => [e.streamVersion, e.type])).toEqual([
        [1, 'MemoryWritten'],
        [2, 'MemoryWritten'],
      ]);
      // Migration 9 dropped it: a cache, sealed (or not) before seals were keyed.
      expect((await store.pool.query(`SELECT 1 FROM ${s}.snapshots WHERE stream_id = 'session:t:a'`)).rows).toEqual([]);

      const large = { ...oldState, more: 'x'.repeat(40_000) };
      const small = { version: 3 };
      await store.saveSnapshot({ streamId: 'session:t:a', version: 2, reducerVersion: 1, state: large });
      await store.saveSnapshot({ streamId: 'session:t:b', version: 1, reducerVersion: 1, state: small });
      const stored = await store.pool.query<{ stream_id: string; version: number; json: boolean; deflated: boolean }>(
        `SELECT stream_id, version, state IS NOT NULL AS json, state_deflated IS NOT NULL AS deflated FROM ${s}.snapshots ORDER BY stream_id, version`,
      );
      expect(stored.rows).toEqual([
        { stream_id: 'session:t:a', version: 2, json: false, deflated: true },
        { stream_id: 'session:t:b', version: 1, json: true, deflated: false },
      ]);
      expect((await store.loadSnapshotAndTail('session:t:a', 1, 5)).snapshot?.state).toEqual(large);
      expect(await store.loadSnapshot('session:t:a', 1, 1)).toBeNull();
      expect((await store.loadSnapshot('session:t:b', 1, 1))!.state).toEqual(small);
      // Overwriting a version switches its form; the row never holds both.
      await store.saveSnapshot({ streamId: 'session:t:a', version: 2, reducerVersion: 1, state: small });
      expect((await store.loadSnapshot('session:t:a', 1, 2))!.state).toEqual(small);
      await expect(store.pool.query(`UPDATE ${s}.snapshots SET state_deflated = '\\x00'::bytea WHERE stream_id = 'session:t:b'`)).rejects.toThrow(
        /snapshots_state_ck/,
      );
    } finally {
      await store.close();
    }
  });

  it('migration 7 keeps the type names of a version-6 schema readable; new rows carry codes, learnt by every process', async () => {
    const schema = `up_${randomBytes(3).toString('hex')}`;
    const s = `"${schema}"`;
    const old = await PostgresEventStore.open({ connectionString: db.url, schema, visibilityWaitMs, migrateTo: 6 });
    const { xid_origin: origin } = (await old.pool.query<{ xid_origin: number }>(`SELECT xid_origin FROM ${s}.store_info`)).rows[0]!;
    // As version 6 appended: names in the types array, through its own function.
    const oldEvents = [newEvent('SessionStarted'), newEvent('MemoryWritten')];
    await old.pool.query(
      `SELECT o_outcome FROM ${s}.append_events($1::text, 0, $2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::json[], $7::json[], $8::bigint, NULL, NULL, NULL, 0)`,
      [
        'session:t:a',
        oldEvents.map((e) => e.eventId),
        oldEvents.map(() => null),
        oldEvents.map((e) => e.type),
        oldEvents.map(() => null),
        oldEvents.map((e) => JSON.stringify(e.data)),
        oldEvents.map((e) => encodeMetadata(e.metadata, 'session:t:a')),
        origin,
      ],
    );
    await old.close();

    const open = () => PostgresEventStore.open({ connectionString: db.url, schema, visibilityWaitMs });
    const [store, other] = await Promise.all([open(), open()]);
    try {
      // Two processes register the same new names at once: one code each.
      await Promise.all([
        store.append('session:t:a', [newEvent('MemoryWritten'), newEvent('ToolCallStarted')], { expectedVersion: 2 }),
        other.append('session:t:b', [newEvent('ToolCallStarted'), newEvent('ToolCallSucceeded')], { expectedVersion: 'no_stream' }),
      ]);
      const codes = await store.pool.query<{ name: string }>(`SELECT name FROM ${s}.event_types ORDER BY name`);
      expect(codes.rows.map((r) => r.name)).toEqual(['MemoryWritten', 'ToolCallStarted', 'ToolCallSucceeded']);
      const rows = await store.pool.query<{ version: number; type: string | null; coded: boolean }>(
        `SELECT e.stream_version AS version, e.type, e.type_code IS NOT NULL AS coded FROM ${s}.events e
          WHERE e.stream_key = (SELECT id FROM ${s}.streams WHERE stream_id = 'session:t:a') ORDER BY 1`,
      );
      expect(rows.rows).toEqual([
        { version: 1, type: 'SessionStarted', coded: false },
        { version: 2, type: 'MemoryWritten', coded: false },
        { version: 3, type: null, coded: true },
        { version: 4, type: null, coded: true },
      ]);
      const expected = ['SessionStarted', 'MemoryWritten', 'MemoryWritten', 'ToolCallStarted'];
      // Each process reads the codes the other registered.
      for (const reader of [store, other]) {
        expect((await reader.readStream('session:t:a')).map((e) => e.type)).toEqual(expected);
        expect((await reader.loadSnapshotAndTail('session:t:a', 1, 10)).events.map((e) => e.type)).toEqual(expected);
        expect((await reader.readStream('session:t:b')).map((e) => e.type)).toEqual(['ToolCallStarted', 'ToolCallSucceeded']);
        const all = await reader.readAll({ after: 0, limit: 100 });
        expect(all.map((e) => e.type).sort()).toEqual([...expected, 'ToolCallStarted', 'ToolCallSucceeded'].sort());
      }
      expect((await store.readStream('session:t:a'))[0]).toMatchObject({
        eventId: oldEvents[0]!.eventId,
        data: oldEvents[0]!.data,
        metadata: oldEvents[0]!.metadata,
      });
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  });

  it('stores UUID event ids as uuid and other ids as text, and rejects a duplicate of either kind', async () => {
    const store = await openStore();
    try {
      const ids = [randomUUID(), 'not-a-uuid', randomUUID().toUpperCase()];
      await store.append(
        'session:t:ids',
        ids.map((eventId) => ({ ...newEvent(), eventId })),
        { expectedVersion: 'no_stream' },
      );
      const rows = await store.pool.query<{ u: string | null; t: string | null }>(
        `SELECT event_uuid::text AS u, event_text AS t FROM "${store.schema}".events ORDER BY stream_version`,
      );
      expect(rows.rows).toEqual([
        { u: ids[0], t: null },
        { u: null, t: 'not-a-uuid' },
        { u: null, t: ids[2] },
      ]);
      expect((await store.readStream('session:t:ids')).map((e) => e.eventId)).toEqual(ids);
      for (const id of ids) {
        await expect(store.append('session:t:other', [{ ...newEvent(), eventId: id }], { expectedVersion: 'any' })).rejects.toThrow(/Duplicate event id/);
      }
      expect(await store.streamVersion('session:t:other')).toBe(0);
    } finally {
      await store.close();
    }
  });
});
