import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@rewind/cli';
import type { Http } from '../../../../test/support/http-client';
import { E2E_STORES, storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

const SECRET = 'Quixotrella';
const KEPT = 'Plumbifora';
const ENCRYPTED = 'Velmorant';

// The real API with memory on (local model, sqlite-vec index beside the store), the real CLI.
describe.each(E2E_STORES)('crypto-shredding reaches long-term memory on the %s store', (storeName) => {
  let cleanup: () => Promise<void> = async () => undefined;
  let env: Record<string, string>;
  let dataDir: string;
  let t: TestApp;
  let http: Http;

  beforeAll(async () => {
    const target = await storeEnv(storeName);
    cleanup = target.cleanup;
    dataDir = mkdtempSync(join(tmpdir(), 'rewind-e2e-memory-shred-'));
    env = { ...target.env, REWIND_DATA_DIR: dataDir, REWIND_AUDIT_SEAL_INTERVAL_MS: '0' };
    t = await startTestApp(env);
    http = t.http;
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * The memory index as an attacker with the disk reads it: the file and its WAL; on PostgreSQL (the index
   * is tables of the shared database there) what a reader of the database sees of memory's tables.
   */
  const indexBytes = async () => {
    if (storeName === 'postgres') {
      const pool = new Pool({ connectionString: env.DATABASE_URL, max: 1 });
      try {
        const { rows } = await pool.query<{ all: string | null }>(
          `SELECT string_agg(concat_ws(' ', text, context, words::text), ' ') AS all FROM rewind.memory_items`,
        );
        return rows[0]!.all ?? '';
      } finally {
        await pool.end();
      }
    }
    return ['', '-wal']
      .map((suffix) => join(dataDir, `rewind.memory.db${suffix}`))
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString('latin1'))
      .join('');
  };
  const say = async (id: string, content: string, headers: Record<string, string> = {}) =>
    expect((await http('POST', `/v1/sessions/${id}/messages`, { role: 'user', content }, headers)).status).toBe(201);
  /** Waits (bounded) until the indexer has passed every event committed so far. */
  const indexed = async () => {
    const target = (await http('GET', '/v1/memory/status')).body.lastPosition as number;
    for (let i = 0; i < 600; i++) {
      const status = (await http('GET', '/v1/memory/status')).body;
      if (status.checkpoint >= target && status.model !== null && status.pendingVectors === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the memory indexer did not catch up within 30 s');
  };
  const recall = async (sessionId: string, query: string) =>
    ((await http('POST', `/v1/sessions/${sessionId}/recall`, { query, scope: 'tenant', k: 10 })).body.hits as { text: string }[]).map((h) => h.text).join('\n');
  async function rewind(...argv: string[]) {
    let out = '';
    const code = await runCli(argv, { stdout: { write: (c: string) => (out += c) }, stderr: { write: (c: string) => (out += c) }, env });
    return { code, out };
  }

  it('a shredded session leaves the index at once and for good: recall, the raw file, the indexer and a rebuild; then a shredded tenant', async () => {
    for (const id of ['vault', 'other']) expect((await http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    await say('vault', `My locker at the ${SECRET} gym opens with 7741`);
    await say('vault', `The ${ENCRYPTED} account number is 99-1234`, { 'rewind-encrypt': 'content' });
    await say('other', `The ${KEPT} bakery opens at seven in the morning`);
    await indexed();
    expect(await recall('other', 'locker code at the gym')).toContain(SECRET);
    // On PostgreSQL the index is the database's: no memory file of this process's own.
    expect(existsSync(join(dataDir, 'rewind.memory.db'))).toBe(storeName !== 'postgres');
    let bytes = await indexBytes();
    expect(bytes).toContain(SECRET);
    // An encrypted field is never indexed: neither its plaintext nor its ciphertext.
    expect(bytes).not.toContain(ENCRYPTED);
    expect(bytes).not.toContain('rwd:enc');

    expect((await http('POST', '/v1/sessions/vault/shred')).status).toBe(200);
    // At once, in the process that shreded: no waiting for the indexer.
    expect(await recall('other', 'locker code at the gym')).not.toContain(SECRET);
    expect(await indexBytes()).not.toContain(SECRET);
    // And after the indexer has read DataShredded from the log.
    await indexed();
    expect(await recall('other', 'locker code at the gym')).not.toContain(SECRET);
    bytes = await indexBytes();
    expect(bytes).not.toContain(SECRET);
    expect(bytes).toContain(KEPT);

    // A rebuild from the whole log (the API stopped) does not bring it back (the embedded index's; the PostgreSQL index is restarted).
    await t.close();
    if (storeName !== 'postgres') {
      const rebuilt = await rewind('memory', 'rebuild');
      expect(rebuilt.code, rebuilt.out).toBe(0);
    }
    bytes = await indexBytes();
    expect(bytes).not.toContain(SECRET);
    expect(bytes).toContain(KEPT);
    t = await startTestApp(env);
    http = t.http;
    expect(await recall('other', 'locker code at the gym')).not.toContain(SECRET);
    expect(await recall('other', 'When does the bakery open?')).toContain(KEPT);

    // A tenant shred from the CLI, the API running: the whole tenant leaves the index.
    const shredded = await rewind('tenants', 'shred', '--tenant', 'default');
    expect(shredded.code, shredded.out).toBe(0);
    expect(shredded.out).toMatch(/memory item/);
    expect(await indexBytes()).not.toContain(KEPT);
    expect(await recall('other', 'When does the bakery open?')).not.toContain(KEPT);
    const events = (await http('GET', '/v1/sessions/other/events')).body.events as { type: string }[];
    expect(events.at(-1)!.type).toBe('DataShredded');
    await indexed();
    expect(await recall('other', 'When does the bakery open?')).not.toContain(KEPT);
    expect(await indexBytes()).not.toContain(KEPT);
  });
});

// Qdrant configured but unreachable (nothing listens on the port): the keys still go, and the answer says what is left to do.
describe('crypto-shredding with the memory index unreachable', () => {
  let t: TestApp;
  // Memory reads its settings from the process environment (like the service).
  const memoryEnv = { REWIND_MEMORY_INDEX: 'qdrant', QDRANT_URL: 'http://127.0.0.1:9' };
  beforeAll(async () => {
    Object.assign(process.env, memoryEnv);
    t = await startTestApp({ REWIND_AUDIT_SEAL_INTERVAL_MS: '0' });
  });
  afterAll(async () => {
    await t?.close();
    for (const name of Object.keys(memoryEnv)) delete process.env[name];
  });

  it('destroys the keys and records the shred, then answers 503 memory_unavailable saying the indexer will finish and how to retry', async () => {
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'vault' })).status).toBe(201);
    expect((await t.http('PUT', '/v1/sessions/vault/memory/code', { value: '7741' }, { 'rewind-encrypt': 'value' })).status).toBe(200);
    const shred = await t.http('POST', '/v1/sessions/vault/shred');
    expect(shred.status).toBe(503);
    expect(shred.body.error).toMatchObject({ code: 'memory_unavailable', message: expect.stringMatching(/data keys are destroyed.*Repeat the request/) });
    expect((await t.http('GET', '/v1/sessions/vault')).body.memory).toEqual({ code: '[shredded]' });
    const events = (await t.http('GET', '/v1/sessions/vault/events')).body.events as { type: string }[];
    expect(events.at(-1)!.type).toBe('DataShredded');
  });
});
