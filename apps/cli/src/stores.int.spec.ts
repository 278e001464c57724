import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import type { EventStore } from '@rewind/event-store';
import { PostgresEventStore } from '@rewind/event-store/postgres';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { verifySignature } from '@rewind/messaging';
import { PostgresKafkaSigningSecretStore } from '@rewind/messaging/postgres';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import type { KafkaSigningSecretStore } from '@rewind/messaging';
import { type ApiKeyStore } from '@rewind/tenancy';
import { FieldEncryption, loadMasterKey, MasterKeyProvider, type DataKeyStore } from '@rewind/tenancy';
import { SqliteApiKeyStore, SqliteDataKeyStore } from '@rewind/tenancy/sqlite';
import { PostgresApiKeyStore, PostgresDataKeyStore } from '@rewind/tenancy/postgres';
import { randomBytes } from 'node:crypto';
import { E2E_STORES, storeEnv } from '../../../test/support/postgres';
import { SqliteVectorIndex } from '@rewind/memory/sqlite-vec';
import { runCli } from './cli';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import type { CommandContext } from './command';
import { shredFromMemory } from './commands/memory-shredding';

/** The key and signing-key commands, and the store readers, on the store the API is configured with. */
// Reads the stores' rows directly: SQLite and PostgreSQL.
describe.each(E2E_STORES.filter((s) => s !== 'eventstoredb'))('rewind CLI on the %s store', (storeName) => {
  let env: Record<string, string> = {};
  let cleanup: () => Promise<void> = async () => undefined;
  let dataDir = '';
  let pool: Pool | undefined;

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    dataDir = mkdtempSync(join(tmpdir(), 'rewind-cli-stores-'));
    // Memory in the data directory's file on both stores: these specs read its rows directly (the shared
    // PostgreSQL index, REWIND_STORE=postgres's default, has its CLI shredding spec in memory-shredding.e2e).
    env = { ...target.env, REWIND_DATA_DIR: dataDir, REWIND_MEMORY_INDEX: 'sqlite' };
    if (storeName === 'postgres') pool = new Pool({ connectionString: env.DATABASE_URL, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function rewind(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, env });
    return { code, stdout, stderr };
  }

  /** The stores the API and the worker read on this configuration. */
  async function apiKeys<T>(use: (store: ApiKeyStore) => Promise<T>): Promise<T> {
    const store = pool ? await PostgresApiKeyStore.open(pool) : new SqliteApiKeyStore(join(dataDir, 'rewind.db'));
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  }
  async function signingKeys<T>(use: (store: KafkaSigningSecretStore) => Promise<T>): Promise<T> {
    const store = pool ? new PostgresKafkaSigningSecretStore(pool) : new SqliteKafkaSigningSecretStore(join(dataDir, 'rewind.db'));
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  }

  it('keys create writes where the API authenticates', async () => {
    const run = await rewind('keys', 'create', '--tenant', 'acme', '--name', 'bot');
    expect(run.code).toBe(0);
    expect(await apiKeys((s) => s.authenticate(run.stdout.trim()))).toMatchObject({ tenantId: 'acme', name: 'bot' });
    const list = await rewind('keys', 'list', '--tenant', 'acme');
    expect(list.stdout).toContain('bot');
    expect(list.stdout).not.toContain(run.stdout.trim());
  });

  it('signing-keys create, list and revoke the keys the worker verifies commands with', async () => {
    const created = await rewind('signing-keys', 'create', '--tenant', 'acme', '--name', 'orders producer');
    expect(created.code).toBe(0);
    const [keyId, secret] = created.stdout.trim().split(' ') as [string, string];
    expect(created.stderr).toContain('shown only this once');
    const found = await signingKeys((s) => s.find(keyId));
    expect(found).toMatchObject({ keyId, tenantId: 'acme' });
    const value = '{"commandId":"c1"}';
    expect(verifySignature(value, `v1=${createHmac('sha256', secret).update(value).digest('hex')}`, found!.secret)).toBe(true);

    const list = await rewind('signing-keys', 'list');
    expect(list.stdout).toContain(keyId);
    expect(list.stdout).toContain('orders producer');
    expect(list.stdout).not.toContain(secret);

    const rotated = await rewind('signing-keys', 'rotate', '--key', keyId, '--grace', '60');
    expect(rotated.code).toBe(0);
    const [sameId, newSecret] = rotated.stdout.trim().split(' ') as [string, string];
    expect(sameId).toBe(keyId);
    expect(await signingKeys((s) => s.find(keyId))).toMatchObject({ secret: newSecret, previousSecrets: [secret] });
    expect((await rewind('signing-keys', 'rotate', '--key', keyId, '--grace', 'x')).code).toBe(2);
    expect((await rewind('signing-keys', 'revoke', '--key', keyId)).code).toBe(0);
    expect((await rewind('signing-keys', 'rotate', '--key', keyId)).code).toBe(1);
    expect(await signingKeys((s) => s.find(keyId))).toBeNull();
    const unknown = await rewind('signing-keys', 'revoke', '--key', 'sk_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no signing key "sk_nope"');
    expect((await rewind('signing-keys', 'create')).code).toBe(2);
  });

  it('state-at and events export read the configured store', async () => {
    if (storeName === 'postgres') {
      const store = await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 });
      try {
        const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 2 }));
        await sessions.startSession({ tenantId: 'default', actor: 't' }, { sessionId: 'trip' });
        await sessions.execute({ tenantId: 'default', actor: 't' }, 'trip', { type: 'WriteMemory', key: 'city', value: 'Lisbon' });
        await sessions.execute({ tenantId: 'default', actor: 't' }, 'trip', { type: 'WriteMemory', key: 'city', value: 'Porto' });
        await sessions.repository.flushSnapshots();
      } finally {
        await store.close();
      }
      const at2 = await rewind('state-at', '--session', 'trip', '--version', '2');
      expect(at2.code).toBe(0);
      expect(JSON.parse(at2.stdout).memory).toEqual({ city: 'Lisbon' });
      const exported = await rewind('events', 'export', '--session', 'trip');
      expect(
        exported.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).type),
      ).toEqual(['SessionStarted', 'MemoryWritten', 'MemoryWritten']);
    }
    const missing = await rewind('state-at', '--session', 'nope', '--version', '1');
    expect(missing.code).toBe(1);
  });

  it('audit digest prints a digest; audit verify proves the log untouched, then names the first broken link', async () => {
    const store: EventStore =
      storeName === 'postgres'
        ? await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 })
        : new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    try {
      const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
      await sessions.startSession({ tenantId: 'audited', actor: 't' }, { sessionId: 'ledger' });
      await sessions.execute({ tenantId: 'audited', actor: 't' }, 'ledger', { type: 'WriteMemory', key: 'iban', value: 'DE89370400440532013000' });
      await sessions.execute({ tenantId: 'audited', actor: 't' }, 'ledger', { type: 'WriteMemory', key: 'amount', value: 100 });
    } finally {
      await store.close();
    }
    // On PostgreSQL the log is read only up to positions no open transaction (of any test running
    // beside this one) may still commit below: wait until the session's three events are covered.
    const sealedOfTenant = async () =>
      /Checked 3 event\(s\) and 0 snapshot\(s\) of tenant "audited"\./.test((await rewind('audit', 'verify', '--tenant', 'audited')).stdout);
    let digest = await rewind('audit', 'digest');
    for (let i = 0; i < 100 && !(await sealedOfTenant()); i++) {
      await new Promise((r) => setTimeout(r, 100));
      digest = await rewind('audit', 'digest');
    }
    expect(digest.code).toBe(0);
    const recorded = digest.stdout.trim();
    expect(recorded).toMatch(/^rwd-digest-v1:\d+:\d+:[0-9a-f]{64}$/);
    expect(digest.stderr).toContain('Record this line');
    const clean = await rewind('audit', 'verify', '--digest', recorded);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('Verified: every link and every snapshot seal holds');
    expect(clean.stdout).toContain('The recorded digest still matches the log.');
    expect(await sealedOfTenant()).toBe(true);

    // One byte of the stored IBAN, changed behind the store's back.
    if (pool) {
      await pool.query(
        `UPDATE rewind.events SET data = replace(data::text, '0532013000', '0532013001')::json WHERE stream_key = (SELECT id FROM rewind.streams WHERE stream_id = 'session:audited:ledger')`,
      );
    } else {
      const raw = new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
      raw.db.prepare(`UPDATE events SET data = replace(data, '0532013000', '0532013001') WHERE stream_id = 'session:audited:ledger'`).run();
      await raw.close();
    }
    const broken = await rewind('audit', 'verify', '--session', 'ledger', '--tenant', 'audited');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /first broken link at session:audited:ledger version 2 \(global position \d+\): the stored event is not the one linked when it was written/,
    );
    expect((await rewind('audit', 'verify')).code).toBe(1);
    expect((await rewind('audit', 'verify', '--tenant', 'nobody')).code).toBe(0);
    expect((await rewind('audit', 'verify', '--digest', 'not-a-digest')).code).toBe(2);
  });

  it('audit rotate-snapshot-key draws a newer key where the API seals snapshots; a snapshot sealed before still verifies', async () => {
    const store: EventStore =
      storeName === 'postgres'
        ? await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 })
        : new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    try {
      const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 1 }));
      await sessions.startSession({ tenantId: 'keyed', actor: 't' }, { sessionId: 'snap' });
      await sessions.execute({ tenantId: 'keyed', actor: 't' }, 'snap', { type: 'WriteMemory', key: 'k', value: 1 });
    } finally {
      await store.close();
    }
    const first = await rewind('audit', 'rotate-snapshot-key');
    const second = await rewind('audit', 'rotate-snapshot-key');
    expect([first.code, second.code]).toEqual([0, 0]);
    const id = (text: string) => Number(/Snapshot key (\d+) seals snapshots from now on/.exec(text)?.[1]);
    expect(id(second.stdout)).toBeGreaterThan(id(first.stdout));
    const verified = await rewind('audit', 'verify', '--tenant', 'keyed');
    expect(verified.code).toBe(0);
    expect(verified.stdout).not.toMatch(/and 0 snapshot\(s\)/);
  });

  it('events export decrypts encrypted fields (shredded ones read "[shredded]"); --as-stored writes the ciphertext', async () => {
    const keys = pool ? await PostgresDataKeyStore.open(pool) : new SqliteDataKeyStore(join(dataDir, 'rewind.db'));
    const events: EventStore =
      storeName === 'postgres'
        ? await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 })
        : new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    try {
      // Written as the API writes it: encrypted at the edge with the configured master key (here the data dir's key file).
      const encryption = new FieldEncryption(keys, new MasterKeyProvider(loadMasterKey({ file: join(dataDir, 'master.key') })), 0);
      const sessions = new SessionService(new SessionRepository(events, { snapshotEvery: 0 }));
      const caller = { tenantId: 'exports', actor: 't' };
      for (const id of ['open', 'gone']) {
        await sessions.startSession(caller, { sessionId: id });
        const body = (await encryption.encryptPaths('exports', id, { value: `ssn of ${id} 078-05-1120`, note: 'plain' }, ['value'])) as { value: string };
        await sessions.execute(caller, id, { type: 'WriteMemory', key: 'ssn', value: body });
      }
      await encryption.shred('exports', 'gone', 'test');
      const lines = (out: string) =>
        out
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { type: string; data: { value?: unknown } });

      const decrypted = await rewind('events', 'export', '--session', 'open', '--tenant', 'exports');
      expect(decrypted.code).toBe(0);
      expect(lines(decrypted.stdout).map((e) => e.data.value)).toEqual([undefined, { value: 'ssn of open 078-05-1120', note: 'plain' }]);
      const shredded = await rewind('events', 'export', '--session', 'gone', '--tenant', 'exports');
      expect(lines(shredded.stdout)[1]!.data.value).toEqual({ value: '[shredded]', note: 'plain' });
      expect(shredded.stdout).not.toContain('078-05-1120');

      const stored = await rewind('events', 'export', '--session', 'open', '--tenant', 'exports', '--as-stored');
      expect(stored.code).toBe(0);
      expect(stored.stdout).not.toContain('078-05-1120');
      expect((lines(stored.stdout)[1]!.data.value as { value: string }).value).toMatch(/^rwd:enc:v1:dk_/);
      // What --as-stored writes is the store's bytes: the same events, decryptable with the keys.
      expect(await encryption.decryptDeep('exports', lines(stored.stdout))).toEqual(lines(decrypted.stdout));
    } finally {
      await events.close();
      await keys.close();
    }
  });

  it('tenants shred destroys the data keys of every session of one tenant, and no other', async () => {
    const keys: DataKeyStore = pool ? await PostgresDataKeyStore.open(pool) : new SqliteDataKeyStore(join(dataDir, 'rewind.db'));
    try {
      const encryption = new FieldEncryption(keys, new MasterKeyProvider(randomBytes(32)), 0);
      const events: EventStore =
        storeName === 'postgres'
          ? await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 })
          : new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
      const sessions = new SessionService(new SessionRepository(events, { snapshotEvery: 0 }));
      await sessions.startSession({ tenantId: 'gone', actor: 't' }, { sessionId: 'a' });
      const gone1 = await encryption.encryptPaths('gone', 'a', { value: 'secret a' }, ['value']);
      const gone2 = await encryption.encryptPaths('gone', 'b', { value: 'secret b' }, ['value']);
      const kept = await encryption.encryptPaths('kept', 'a', { value: 'secret k' }, ['value']);
      expect(await encryption.decryptDeep('gone', gone1)).toEqual({ value: 'secret a' });

      const run = await rewind('tenants', 'shred', '--tenant', 'gone');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Destroyed 2 data key(s) of tenant "gone"');
      expect(await encryption.decryptDeep('gone', [gone1, gone2])).toEqual([{ value: '[shredded]' }, { value: '[shredded]' }]);
      expect(await encryption.decryptDeep('kept', kept)).toEqual({ value: 'secret k' });
      expect((await keys.forSession('gone', 'a'))?.wrapped).toBeNull();
      expect((await keys.forSession('kept', 'a'))?.wrapped).toMatch(/^mk1:/);
      // Recorded in the session's stream (session b has a key but no stream: nothing to record in).
      const recorded = (await events.readStream('session:gone:a')).at(-1)!;
      expect(recorded).toMatchObject({ type: 'DataShredded', data: { keyIds: [(await keys.forSession('gone', 'a'))!.keyId], reason: 'rewind tenants shred' } });
      expect(recorded.metadata.actor).toBe('cli');
      await events.close();
      expect((await rewind('tenants', 'shred', '--tenant', 'gone')).stdout).toContain('no live data keys');
      expect((await rewind('tenants', 'shred')).code).toBe(2);
    } finally {
      await keys.close();
    }
  });

  // The memory index is its own SQLite file whatever the store: checked once, on the SQLite configuration.
  it.runIf(storeName === 'sqlite')(
    'tenants shred waits for a memory index another process holds past the busy timeout, and reports its success (issue 42: "database is locked", exit 1) [SQLite only: the lock is the memory file\'s]',
    async () => {
      await new SqliteEventStore({ filename: join(dataDir, 'rewind.db') }).close(); // the API's data directory
      const file = join(dataDir, 'rewind.memory.db');
      const memory = new SqliteVectorIndex({ filename: file });
      await memory.open({ id: 'some-model', dimensions: 8 });
      const item = { tenantId: 'busy-memory', sessionId: 'x', eventId: 'e1', version: 1, globalPosition: 1, role: 'memory' as const, chunk: 0 };
      await memory.upsert([{ item: { ...item, id: 'e1:0', occurredAt: '2020-01-01T00:00:00.000Z', text: 'passport P1234567' }, vector: new Float32Array(8) }]);
      await memory.close();
      // As a running API's indexer holds it while it embeds a batch: the write lock, longer than SQLite's 5 s busy timeout.
      const holder = new Database(file);
      holder.exec('BEGIN IMMEDIATE');
      try {
        const context = { io: { env, stdout: { write: () => true }, stderr: { write: () => true } }, config: { dataDir } } as unknown as CommandContext;
        // Given up after its wait: null (the indexer removes the items itself), never an error.
        expect(await shredFromMemory(context, { tenantId: 'busy-memory' }, 1_000)).toBeNull();
        setTimeout(() => holder.exec('COMMIT'), 2_000);
        const run = await rewind('tenants', 'shred', '--tenant', 'busy-memory');
        expect(run.stderr).toContain('the memory index is busy');
        expect(run.code).toBe(0);
        expect(run.stdout).toContain('removed 1 memory item(s) of the tenant from the memory index');
      } finally {
        if (holder.inTransaction) holder.exec('COMMIT');
        holder.close();
      }
      const left = new SqliteVectorIndex({ filename: file });
      await left.open({ id: 'some-model', dimensions: 8 });
      expect((await left.listItems()).filter((i) => i.text.includes('P1234567'))).toEqual([]);
      await left.close();
    },
    60_000,
  );

  it('retention run exports inactive sessions to NDJSON (decrypted), then shreds them; --dry-run changes nothing; events stay', async () => {
    const store: EventStore =
      storeName === 'postgres'
        ? await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 })
        : new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    const keys: DataKeyStore = pool ? await PostgresDataKeyStore.open(pool) : new SqliteDataKeyStore(join(dataDir, 'rewind.db'));
    // The master key the CLI will load (REWIND_DATA_DIR/master.key), as the API would have.
    const encryption = new FieldEncryption(keys, new MasterKeyProvider(loadMasterKey({ file: join(dataDir, 'master.key') })), 0);
    const caller = { tenantId: 'retained', actor: 't' };
    try {
      const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
      for (const id of ['old-secret', 'old-plain', 'fresh']) await sessions.startSession(caller, { sessionId: id });
      const body = (await encryption.encryptPaths('retained', 'old-secret', { value: 'SSN 078-05-1120' }, ['value'])) as { value: string };
      await sessions.execute(caller, 'old-secret', { type: 'WriteMemory', key: 'ssn', value: body.value });
      await sessions.execute(caller, 'old-plain', { type: 'WriteMemory', key: 'city', value: 'Lisbon' });
      const backdate = `UPDATE ${pool ? 'rewind.' : ''}streams SET updated_at = '2020-01-01T00:00:00.000Z' WHERE stream_id IN ('session:retained:old-secret', 'session:retained:old-plain')`;
      if (pool) await pool.query(backdate);
      else (store as SqliteEventStore).db.prepare(backdate).run();

      const dry = await rewind('retention', 'run', '--tenant', 'retained', '--inactive-days', '30', '--dry-run');
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain('would export 2 event(s) of session "old-secret"');
      expect(dry.stdout).toContain('session "old-plain"');
      expect(dry.stdout).not.toContain('"fresh"');
      expect(dry.stdout).toContain('nothing was changed');
      expect((await keys.forSession('retained', 'old-secret'))?.wrapped).toMatch(/^mk1:/);

      // What the memory indexer had written of the sessions (any model: the CLI loads none).
      const memory = new SqliteVectorIndex({ filename: join(dataDir, 'rewind.memory.db') });
      await memory.open({ id: 'some-model', dimensions: 8 });
      await memory.upsert(
        ['old-plain', 'fresh'].map((sessionId, i) => ({
          item: {
            id: `e${i}:0`,
            tenantId: 'retained',
            sessionId,
            eventId: `e${i}`,
            version: 2,
            globalPosition: i + 1,
            role: 'memory' as const,
            occurredAt: '2020-01-01T00:00:00.000Z',
            chunk: 0,
            text: `city: Lisbon ${sessionId}`,
          },
          vector: Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0),
        })),
      );
      await memory.close();

      const exportDir = mkdtempSync(join(tmpdir(), 'rewind-retention-'));
      const run = await rewind('retention', 'run', '--tenant', 'retained', '--inactive-days', '30', '--export-dir', exportDir);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('session "old-plain"');
      expect(run.stdout).toMatch(/old-plain.*removed its 1 memory item/);
      const left = new SqliteVectorIndex({ filename: join(dataDir, 'rewind.memory.db') });
      await left.open({ id: 'some-model', dimensions: 8 });
      expect((await left.listItems()).map((i) => i.text)).toEqual(['city: Lisbon fresh']);
      await left.close();
      expect(run.stdout).toMatch(/Tenant "retained": exported 2 session\(s\) \(\d+ bytes of NDJSON\) and destroyed 1 data key\(s\)/);
      const archive = readFileSync(join(exportDir, 'retained', 'old-secret.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(archive.map((e: { type: string }) => e.type)).toEqual(['SessionStarted', 'MemoryWritten']);
      expect(archive[1].data.value).toBe('SSN 078-05-1120');
      expect(existsSync(join(exportDir, 'retained', 'fresh.ndjson'))).toBe(false);
      expect(await encryption.decryptDeep('retained', body)).toEqual({ value: '[shredded]' });
      expect((await keys.forSession('retained', 'old-plain'))?.wrapped).toBeNull();
      expect(await keys.forSession('retained', 'fresh')).toBeNull();
      // Nothing deleted: the two events stay, and the shredding is recorded after them.
      const kept = await store.readStream('session:retained:old-secret');
      expect(kept.map((e) => e.type)).toEqual(['SessionStarted', 'MemoryWritten', 'DataShredded']);
      expect(kept[2]!.metadata.actor).toBe('cli:retention');

      const again = await rewind('retention', 'run', '--tenant', 'retained', '--inactive-days', '30', '--export-dir', exportDir);
      // Shredded and recorded just now: nothing is exported or shredded twice.
      expect(again.stdout).toContain('exported 0 session(s) (0 bytes of NDJSON) and destroyed 0 data key(s)');
      expect((await rewind('retention', 'run', '--tenant', 'retained', '--inactive-days', '30')).code).toBe(2);
      rmSync(exportDir, { recursive: true, force: true });
    } finally {
      await keys.close();
      await store.close();
    }
  });

  it('retention snapshots keeps the newest K snapshots per stream and collects unreferenced segments; states read the same after', async () => {
    const open = async (): Promise<EventStore> =>
      storeName === 'postgres'
        ? await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 })
        : new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    const caller = { tenantId: 'pruned', actor: 't' };
    const options = { snapshotEvery: 5, segmentSizes: { turns: 2, toolCalls: 2, timeline: 4 } };
    const count = async (store: EventStore) => {
      const q = (table: string) => `SELECT count(*) AS n FROM ${pool ? 'rewind.' : ''}${table} WHERE stream_id = 'session:pruned:long'`;
      if (pool) return Promise.all(['snapshots', 'snapshot_segments'].map(async (t) => Number((await pool!.query<{ n: string }>(q(t))).rows[0]!.n)));
      return ['snapshots', 'snapshot_segments'].map((t) => ((store as SqliteEventStore).db.prepare(q(t)).get() as { n: number }).n);
    };
    let store = await open();
    let before: { head: unknown; old: unknown };
    try {
      const sessions = new SessionService(new SessionRepository(store, options));
      await sessions.startSession(caller, { sessionId: 'long' });
      for (let i = 0; i < 40; i++)
        await sessions.execute(caller, 'long', {
          type: 'RecordMessage',
          role: i % 2 ? 'agent' : 'user',
          content: `message ${i}`,
          turnId: `t${Math.floor(i / 2)}`,
        });
      await sessions.repository.flushSnapshots();
      before = { head: await sessions.getState(caller, 'long'), old: await sessions.getState(caller, 'long', 17) };
      const [snapshots, segments] = await count(store);
      expect(snapshots).toBeGreaterThan(3);
      expect(segments).toBeGreaterThan(3);
    } finally {
      await store.close();
    }

    const dry = await rewind('retention', 'snapshots', '--keep', '1', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^Dry run: would delete [1-9]\d* snapshot\(s\) and [1-9]\d* unreferenced segment\(s\) in \d+ stream\(s\), [1-9]\d* bytes\.$/m);
    const run = await rewind('retention', 'snapshots', '--keep', '1');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Deleted [1-9]\d* snapshot\(s\) and [1-9]\d* unreferenced segment\(s\) in \d+ stream\(s\), [1-9]\d* bytes reclaimed/m);
    expect((await rewind('retention', 'snapshots', '--keep', '1')).stdout).toMatch(/^Deleted 0 snapshot\(s\) and 0 unreferenced segment/m);

    store = await open();
    try {
      const [snapshots, segments] = await count(store);
      expect(snapshots).toBe(1);
      expect(segments).toBeGreaterThan(0);
      // A fresh repository (no cache): the kept snapshot's segments are all there, and old states replay.
      const sessions = new SessionService(new SessionRepository(store, options));
      expect(await sessions.getState(caller, 'long')).toEqual(before.head);
      expect(await sessions.getState(caller, 'long', 17)).toEqual(before.old);
    } finally {
      await store.close();
    }
    expect((await rewind('retention', 'snapshots', '--keep', '0')).code).toBe(2);
  });

  it('retention set stores a per-tenant policy that retention run applies to every tenant that has one', async () => {
    const store: EventStore =
      storeName === 'postgres'
        ? await PostgresEventStore.open({ connectionString: env.DATABASE_URL!, poolSize: 2 })
        : new SqliteEventStore({ filename: join(dataDir, 'rewind.db') });
    try {
      await new SessionService(new SessionRepository(store, { snapshotEvery: 0 })).startSession({ tenantId: 'policied', actor: 't' }, { sessionId: 'idle' });
      const backdate = `UPDATE ${pool ? 'rewind.' : ''}streams SET updated_at = '2020-01-01T00:00:00.000Z' WHERE stream_id = 'session:policied:idle'`;
      if (pool) await pool.query(backdate);
      else (store as SqliteEventStore).db.prepare(backdate).run();
    } finally {
      await store.close();
    }
    expect((await rewind('retention', 'set', '--tenant', 'policied', '--inactive-days', '30')).code).toBe(0);
    expect((await rewind('retention', 'run', '--tenant', 'policied', '--dry-run')).code).toBe(2);
    const dry = await rewind('retention', 'run', '--dry-run');
    expect(dry.stdout).toContain('session "idle"');
    const exportDir = mkdtempSync(join(tmpdir(), 'rewind-retention-policy-'));
    const run = await rewind('retention', 'run', '--export-dir', exportDir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Tenant "policied": exported 1 session(s)');
    expect(existsSync(join(exportDir, 'policied', 'idle.ndjson'))).toBe(true);
    expect((await rewind('retention', 'set', '--tenant', 'policied', '--off')).code).toBe(0);
    expect((await rewind('retention', 'set', '--tenant', 'policied')).code).toBe(2);
    rmSync(exportDir, { recursive: true, force: true });
  });
});
