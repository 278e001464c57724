import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealLog, verifyLog, type EventStore } from '@rewind/event-store';
import { PostgresEventStore, PostgresSealStore } from '@rewind/event-store/postgres';
import { SqliteSealStore } from '@rewind/event-store/sqlite';
import { httpClient } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { EVENT_STORE } from '../infrastructure/tokens';

const SSN = '078-05-1120';
const CARD = '4111 1111 1111 1111';

// Reads the stores' raw bytes: SQLite and PostgreSQL (on EventStoreDB the events' bytes are on the server, not read here).
describe.each(E2E_STORES.filter((s) => s !== 'eventstoredb'))('field encryption and crypto-shredding on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let t: TestApp;
  let databaseUrl: string | undefined;

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    databaseUrl = target.env.DATABASE_URL;
    t = await startTestApp({ ...target.env, REWIND_AUDIT_SEAL_INTERVAL_MS: '0' });
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
  });

  /** Everything the store holds, as an attacker with the disk (or the database) would read it. */
  async function rawBytes(): Promise<string> {
    if (!databaseUrl) {
      const file = join(t.dataDir, 'rewind.db');
      return Buffer.concat([file, `${file}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f))).toString('latin1');
    }
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows: tables } = await client.query<{ s: string; t: string }>(
        `SELECT table_schema AS s, table_name AS t FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
      );
      let all = '';
      for (const { s, t: table } of tables) {
        const { rows } = await client.query<{ row: string }>(`SELECT x::text AS row FROM "${s}"."${table}" x`);
        all += rows.map((r) => r.row).join('\n');
      }
      return all;
    } finally {
      await client.end();
    }
  }

  async function wrappedKey(sessionId: string): Promise<string | null> {
    if (!databaseUrl) {
      const db = new (await import('rewind-better-sqlite3')).default(join(t.dataDir, 'rewind.db'));
      try {
        return (db.prepare('SELECT wrapped FROM data_keys WHERE session_id = ?').get(sessionId) as { wrapped: string | null }).wrapped;
      } finally {
        db.close();
      }
    }
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query<{ wrapped: string | null }>('SELECT wrapped FROM rewind.data_keys WHERE session_id = $1', [sessionId])).rows[0]!.wrapped;
    } finally {
      await client.end();
    }
  }

  it('stores ciphertext only, reads plaintext back on every read path, and after a shred never again', async () => {
    const { http } = t;
    expect((await http('POST', '/v1/sessions', { sessionId: 'secret', title: 'Visa application' })).status).toBe(201);
    expect((await http('PUT', '/v1/sessions/secret/memory/ssn', { value: SSN }, { 'rewind-encrypt': 'value' })).status).toBe(200);
    expect((await http('POST', '/v1/sessions/secret/messages', { role: 'user', content: `my card is ${CARD}` }, { 'rewind-encrypt': 'content' })).status).toBe(
      201,
    );
    expect((await http('PUT', '/v1/sessions/secret/memory/city', { value: 'Lisbon' })).status).toBe(200);

    // Authorised reads are transparent.
    const state = (await http('GET', '/v1/sessions/secret')).body;
    expect(state.memory).toMatchObject({ ssn: SSN, city: 'Lisbon' });
    expect(JSON.stringify(state)).toContain(`my card is ${CARD}`);
    expect((await http('GET', '/v1/sessions/secret/state?at=2')).body.memory).toEqual({ ssn: SSN });
    const events = (await http('GET', '/v1/sessions/secret/events')).body.events as { type: string; data: { value?: unknown } }[];
    expect(events.find((e) => e.type === 'MemoryWritten')!.data.value).toBe(SSN);
    expect((await http('GET', '/v1/sessions')).status).toBe(200); // read models caught up

    // At rest: ciphertext only (events, snapshots, read models).
    const before = await rawBytes();
    expect(before).toContain('rwd:enc:v1:');
    expect(before).not.toContain(SSN);
    expect(before).not.toContain(CARD);
    expect(before).toContain('Lisbon');
    const wrapped = await wrappedKey('secret');
    expect(wrapped).toMatch(/^mk1:/);

    // Shredding is an admin's act.
    const agent = httpClient(t.baseUrl, (await http('POST', '/v1/keys', { name: 'agent', scopes: ['write', 'read'] })).body.key);
    expect((await agent('POST', '/v1/sessions/secret/shred')).status).toBe(403);
    expect((await http('POST', '/v1/sessions/nope/shred')).status).toBe(404);
    const shred = await http('POST', '/v1/sessions/secret/shred');
    expect(shred.status).toBe(200);
    expect(shred.body).toMatchObject({
      sessionId: 'secret',
      keysDestroyed: 1,
      unreadableValues: 2,
      nothingEncrypted: false,
      unreadableFields: [
        { event: 'MemoryWritten', path: 'value', values: 1 },
        { event: 'UserMessageReceived', path: 'content', values: 1 },
      ],
    });
    const recorded = ((await http('GET', '/v1/sessions/secret/events')).body.events as { type: string; data: unknown; metadata: { actor: string } }[]).at(-1)!;
    expect(recorded).toMatchObject({ type: 'DataShredded', data: { keyIds: [expect.stringMatching(/^dk_/)], reason: 'POST /v1/sessions/:id/shred' } });
    expect(recorded.metadata.actor).toMatch(/^key:[0-9a-f]{12}$/);
    expect((await http('POST', '/v1/sessions/secret/shred')).body).toMatchObject({ sessionId: 'secret', keysDestroyed: 0, unreadableValues: 2 });

    const after = (await http('GET', '/v1/sessions/secret')).body;
    expect(after.memory).toEqual({ ssn: '[shredded]', city: 'Lisbon' });
    expect(JSON.stringify(after)).not.toContain(CARD);
    expect((await http('GET', '/v1/sessions/secret/state?at=2')).body.memory).toEqual({ ssn: '[shredded]' });
    const shreddedEvents = JSON.stringify((await http('GET', '/v1/sessions/secret/events')).body);
    expect(shreddedEvents).toContain('[shredded]');
    expect(shreddedEvents).not.toContain(SSN);
    expect(await wrappedKey('secret')).toBeNull();
    const raw = await rawBytes();
    expect(raw).not.toContain(SSN);
    if (!databaseUrl) expect(raw).not.toContain(wrapped!.slice(4)); // secure_delete + WAL truncated

    // Nothing more is encrypted for a shredded session; a bad header persists nothing.
    const refused = await http('PUT', '/v1/sessions/secret/memory/ssn', { value: SSN }, { 'rewind-encrypt': 'value' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('session_shredded');
    const version = (await http('GET', '/v1/sessions/secret')).body.version;
    const bad = await http('PUT', '/v1/sessions/secret/memory/x', { value: 1 }, { 'rewind-encrypt': 'nope.deeper' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('"nope.deeper"') });
    expect((await http('GET', '/v1/sessions/secret')).body.version).toBe(version);

    // The hash chains cover the ciphertext: shredding does not break them.
    const store = t.app.get<EventStore>(EVENT_STORE);
    const seals = store instanceof PostgresEventStore ? new PostgresSealStore(store.pool, store.schema) : new SqliteSealStore(join(t.dataDir, 'rewind.db'));
    try {
      await sealLog(store, seals);
      expect(await verifyLog(store, seals, { streamIds: ['session:default:secret'] })).toMatchObject({ ok: true });
    } finally {
      await seals.close();
    }
  });

  it("policies encrypt a tool's declared input and output paths and a memory key's values, on single and batched writes", async () => {
    const { http } = t;
    const agent = httpClient(t.baseUrl, (await http('POST', '/v1/keys', { name: 'agent', scopes: ['write', 'read'] })).body.key);
    expect((await agent('PUT', '/v1/encryption/tools/kyc', { input: ['ssn'] })).status).toBe(403);
    expect((await http('PUT', '/v1/encryption/tools/kyc', { input: ['ssn', 'bank.iban'], output: ['card.number'] })).status).toBe(200);
    expect((await http('PUT', '/v1/encryption/memory-keys/passport', { encrypted: true })).status).toBe(200);
    const bad = await http('PUT', '/v1/encryption/tools/kyc', { input: ['a..b'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect((await agent('GET', '/v1/encryption')).body).toEqual({
      tools: { kyc: { input: ['ssn', 'bank.iban'], output: ['card.number'] } },
      memoryKeys: ['passport'],
    });

    expect((await agent('POST', '/v1/sessions', { sessionId: 'kyc' })).status).toBe(201);
    expect((await agent('POST', '/v1/sessions/kyc/tool-calls', { toolCallId: 'c1', tool: 'kyc', input: { ssn: SSN, name: 'Ann Example' } })).status).toBe(201);
    expect((await agent('POST', '/v1/sessions/kyc/tool-calls/c1/succeed', { output: { card: { number: CARD }, approved: true } })).status).toBe(200);
    expect((await agent('PUT', '/v1/sessions/kyc/memory/passport', { value: 'P-X1234567' })).status).toBe(200);
    const batch = await agent('POST', '/v1/sessions/kyc/steps', {
      steps: [
        { kind: 'tool-call', toolCallId: 'c2', tool: 'kyc', input: { ssn: '219-09-9999', bank: { iban: 'DE89370400440532013000' } } },
        { kind: 'tool-result', toolCallId: 'c2', output: { card: { number: '5500 0000 0000 0004' } } },
        { kind: 'memory', key: 'passport', value: 'P-Y7654321' },
      ],
    });
    expect(batch.status).toBe(201);

    const state = (await agent('GET', '/v1/sessions/kyc')).body;
    expect(state.memory.passport).toBe('P-Y7654321');
    const text = JSON.stringify(state);
    for (const secret of [SSN, CARD, '219-09-9999', 'DE89370400440532013000', '5500 0000 0000 0004']) expect(text).toContain(secret);
    expect((await agent('GET', '/v1/sessions')).status).toBe(200);
    const raw = await rawBytes();
    for (const secret of [SSN, CARD, 'P-X1234567', 'P-Y7654321', '219-09-9999', 'DE89370400440532013000', '5500 0000 0000 0004'])
      expect(raw).not.toContain(secret);
    expect(raw).toContain('Ann Example'); // not declared, not encrypted
  });
});
