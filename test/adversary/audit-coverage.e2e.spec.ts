import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The driver Rewind's stores open their files with: a second copy of SQLite in one process would not share its file locks.
import Database from 'rewind-better-sqlite3';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@rewind/cli';
import { httpClient, type Http } from '../support/http-client';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { kill9, startServerProcess, type ServerProcess } from '../support/server-process';

/**
 * Issue 28, item 5 (and item 6's PostgreSQL case, and item 7's crash): everything committed and
 * everything served is covered by the audit. Each threat is carried out as an insider with
 * write access to the database would, against a real API process (`npm run build` first):
 * - an UPDATE of a snapshot was served by GET /v1/sessions/:id and every check said ok;
 * - an event edited after a kill, before the sealer's next round, was never detected, and the
 *   next seal signed the edit in;
 * - an event inserted into a tenant's log (a new session, at a free position below newer events),
 *   one deleted, two reordered passed `audit verify --tenant` and GET /v1/audit/chains.
 */
describe.each(E2E_STORES)('the audit covers everything committed and served, on the %s store', (storeName) => {
  const adminKey = `test-admin-${randomBytes(12).toString('hex')}`;
  let dataDir: string;
  let env: Record<string, string>;
  let cleanup: () => Promise<void> = async () => undefined;
  let server: ServerProcess | null = null;

  /** Runs SQL on the store's tables as an insider would: the SQLite text, or the PostgreSQL one (schema `rewind`). */
  async function tamper(sqlite: string, postgres: string): Promise<void> {
    if (storeName === 'sqlite') {
      const db = new Database(join(dataDir, 'rewind.db'));
      try {
        db.exec(sqlite);
      } finally {
        db.close();
      }
      return;
    }
    const client = new Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(postgres);
    } finally {
      await client.end();
    }
  }

  async function count(sqlite: string, postgres: string): Promise<number> {
    if (storeName === 'sqlite') {
      const db = new Database(join(dataDir, 'rewind.db'), { readonly: true });
      try {
        return Number(Object.values(db.prepare(sqlite).get() as object)[0]);
      } finally {
        db.close();
      }
    }
    const client = new Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      return Number(Object.values((await client.query(postgres)).rows[0] as object)[0]);
    } finally {
      await client.end();
    }
  }

  async function start(extra: Record<string, string> = {}): Promise<Http> {
    server = await startServerProcess({ ...env, ...extra });
    return httpClient(server.baseUrl, adminKey);
  }

  async function stop(): Promise<void> {
    if (server) await kill9(server);
    server = null;
  }

  /** `rewind audit verify ...` against the same store: exit code and what it said. */
  async function auditVerify(...argv: string[]): Promise<{ code: number; out: string }> {
    let out = '';
    const write = (chunk: string) => void (out += chunk);
    const code = await runCli(['audit', 'verify', ...argv], { stdout: { write }, stderr: { write }, env });
    return { code, out };
  }

  async function tenantKeys(admin: Http, tenantId: string): Promise<{ writer: Http; auditor: Http }> {
    const writer = await admin('POST', '/v1/keys', { name: `${tenantId} agent`, scopes: ['write', 'read'], tenantId });
    const auditor = await admin('POST', '/v1/keys', { name: `${tenantId} auditor`, scopes: ['audit'], tenantId });
    expect([writer.status, auditor.status]).toEqual([201, 201]);
    return { writer: httpClient(server!.baseUrl, writer.body.key), auditor: httpClient(server!.baseUrl, auditor.body.key) };
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rewind-audit-adversary-'));
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    // The sealer of the old design ran once a minute here: what is checked is what the append itself covers.
    env = { ...store.env, REWIND_DATA_DIR: dataDir, REWIND_ADMIN_KEY: adminKey, REWIND_AUDIT_SEAL_INTERVAL_MS: '60000', REWIND_RATE_LIMIT_PER_SECOND: '0' };
  });
  afterAll(async () => {
    await stop();
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an UPDATE of a snapshot is not served (the read replays the events and says so), and every check fails', async () => {
    let admin = await start({ REWIND_SNAPSHOT_EVERY: '3' });
    const { writer } = await tenantKeys(admin, 'snap-t');
    expect((await writer('POST', '/v1/sessions', { sessionId: 'report', title: 'Quarterly report' })).status).toBe(201);
    expect((await writer('PUT', '/v1/sessions/report/memory/owner', { value: 'finance' })).status).toBe(200);
    expect((await writer('PUT', '/v1/sessions/report/memory/due', { value: 'friday' })).status).toBe(200);
    // The snapshot at version 3 is written after the answer: wait for it (bounded).
    const snapshots = () =>
      count(
        `SELECT count(*) FROM snapshots WHERE stream_id = 'session:snap-t:report'`,
        `SELECT count(*) FROM rewind.snapshots WHERE stream_id = 'session:snap-t:report'`,
      );
    for (let i = 0; i < 200 && (await snapshots()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await snapshots()).toBe(1);
    await stop(); // no cached state: the next read loads the snapshot

    await tamper(
      `UPDATE snapshots SET state = replace(state, 'Quarterly report', 'Forged report') WHERE stream_id = 'session:snap-t:report'`,
      `UPDATE rewind.snapshots SET state = replace(state::text, 'Quarterly report', 'Forged report')::json WHERE stream_id = 'session:snap-t:report'`,
    );
    admin = await start({ REWIND_SNAPSHOT_EVERY: '3' });
    const { writer: reader, auditor } = await tenantKeys(admin, 'snap-t');
    const head = await reader('GET', '/v1/sessions/report');
    expect(head.status).toBe(200);
    expect(head.body.title).toBe('Quarterly report');
    expect((await reader('GET', '/v1/sessions/report/state?at=3')).body.title).toBe('Quarterly report');
    expect(server!.output()).toContain('was not served');
    const metrics = await fetch(`${server!.baseUrl}/metrics`);
    expect(await metrics.text()).toMatch(/rewind_snapshots_rejected [1-9]/);

    const chains = await auditor('GET', '/v1/audit/chains');
    expect(chains.body).toMatchObject({ ok: false, snapshotsRejected: [{ streamId: 'session:snap-t:report', version: 3 }] });
    const verify = await auditVerify('--tenant', 'snap-t');
    expect(verify.code).toBe(1);
    expect(verify.out).toContain('the snapshot of session:snap-t:report at version 3 does not match its seal');
    let projections = '';
    const write = (chunk: string) => void (projections += chunk);
    expect(await runCli(['projections', 'verify'], { stdout: { write }, stderr: { write }, env })).toBe(1);
    expect(projections).toContain('the snapshot of session:snap-t:report at version 3 does not match its seal');
    await stop();
  });

  it('an edit of an event committed just before a kill is detected, and no later seal signs it in', async () => {
    const admin = await start();
    const { writer } = await tenantKeys(admin, 'crash-t');
    expect((await writer('POST', '/v1/sessions', { sessionId: 'trip', title: 'trip' })).status).toBe(201);
    expect((await writer('PUT', '/v1/sessions/trip/memory/destination', { value: 'Paris' })).status).toBe(200);
    await stop();

    await tamper(
      `UPDATE events SET data = replace(data, 'Paris', 'Lyon') WHERE stream_id = 'session:crash-t:trip' AND stream_version = 2`,
      `UPDATE rewind.events SET data = replace(data::text, 'Paris', 'Lyon')::json
        WHERE stream_key = (SELECT id FROM rewind.streams WHERE stream_id = 'session:crash-t:trip') AND stream_version = 2`,
    );
    const first = await auditVerify();
    expect(first.code).toBe(1);
    expect(first.out).toContain('session:crash-t:trip version 2');

    // The API starts again and seals what its sealer finds: the edit stays detected.
    await start({ REWIND_AUDIT_SEAL_INTERVAL_MS: '50' });
    await new Promise((r) => setTimeout(r, 1000));
    for (const argv of [[], ['--tenant', 'crash-t'], ['--tenant', 'crash-t', '--session', 'trip']]) {
      const again = await auditVerify(...argv);
      expect(again.code, argv.join(' ')).toBe(1);
      expect(again.out).toContain('altered');
    }
    await stop();
  });

  it("an insert, a delete or a reorder of a tenant's events fails tenant-scoped verify and /v1/audit/chains", async () => {
    const admin = await start();
    const tenants = { insert: 'ins-t', delete: 'del-t', reorder: 'reo-t' };
    const auditors: Record<string, Http> = {};
    const counts: unknown[] = [];
    for (const [kind, tenantId] of Object.entries(tenants)) {
      const { writer, auditor } = await tenantKeys(admin, tenantId);
      auditors[kind] = auditor;
      for (const sessionId of ['a', 'b']) {
        expect((await writer('POST', '/v1/sessions', { sessionId, title: sessionId })).status).toBe(201);
        expect((await writer('PUT', `/v1/sessions/${sessionId}/memory/k`, { value: `${kind} ${sessionId}` })).status).toBe(200);
      }
      const chains = (await auditor('GET', '/v1/audit/chains')).body;
      expect(chains).toMatchObject({ ok: true, unsealed: 0 });
      counts.push({ checked: chains.checked, sessions: chains.sessions });
    }
    // Three tenants that wrote the same, in a deployment that holds more: the counts are each tenant's own.
    expect(counts[0]).toMatchObject({ checked: expect.any(Number), sessions: 2 });
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);

    // Insert: a copy of a real event as the first of a new session, at a free position below the
    // tenant's newer events on PostgreSQL (positions are sparse), after the last one on SQLite (dense).
    await tamper(
      `INSERT INTO streams (stream_id, version, created_at, updated_at) VALUES ('session:ins-t:planted', 1, '2026-01-01', '2026-01-01');
       INSERT INTO events (global_position, stream_id, stream_version, event_id, type, type_code, parent_version, data, metadata)
       SELECT (SELECT max(global_position) FROM events) + 1, 'session:ins-t:planted', 1, 'planted-1', type, type_code, parent_version, data, metadata
         FROM events WHERE stream_id = 'session:ins-t:a' AND stream_version = 1`,
      `INSERT INTO rewind.streams (stream_id, version, created_at, updated_at) VALUES ('session:ins-t:planted', 1, now(), now());
       INSERT INTO rewind.events (global_position, stream_key, stream_version, parent_version, event_text, type_code, data, metadata)
       SELECT e.global_position + 1, (SELECT id FROM rewind.streams WHERE stream_id = 'session:ins-t:planted'), 1, e.parent_version, 'planted-1', e.type_code, e.data, e.metadata
         FROM rewind.events e WHERE e.stream_key = (SELECT id FROM rewind.streams WHERE stream_id = 'session:ins-t:a') AND e.stream_version = 1`,
    );
    // Delete: the newest event of a session.
    await tamper(
      `DELETE FROM events WHERE stream_id = 'session:del-t:b' AND stream_version = 2`,
      `DELETE FROM rewind.events WHERE stream_key = (SELECT id FROM rewind.streams WHERE stream_id = 'session:del-t:b') AND stream_version = 2`,
    );
    // Reorder: two events of the tenant's sessions trade their places in the global log.
    await tamper(
      `CREATE TEMP TABLE swap AS SELECT
         (SELECT global_position FROM events WHERE stream_id = 'session:reo-t:a' AND stream_version = 2) AS pa,
         (SELECT global_position FROM events WHERE stream_id = 'session:reo-t:b' AND stream_version = 2) AS pb;
       UPDATE events SET global_position = 9007199254740990 WHERE global_position = (SELECT pa FROM swap);
       UPDATE events SET global_position = (SELECT pa FROM swap) WHERE global_position = (SELECT pb FROM swap);
       UPDATE events SET global_position = (SELECT pb FROM swap) WHERE global_position = 9007199254740990`,
      `CREATE TEMP TABLE swap AS SELECT
         (SELECT global_position FROM rewind.events WHERE stream_key = (SELECT id FROM rewind.streams WHERE stream_id = 'session:reo-t:a') AND stream_version = 2) AS pa,
         (SELECT global_position FROM rewind.events WHERE stream_key = (SELECT id FROM rewind.streams WHERE stream_id = 'session:reo-t:b') AND stream_version = 2) AS pb;
       UPDATE rewind.events SET global_position = 9007199254740990 WHERE global_position = (SELECT pa FROM swap);
       UPDATE rewind.events SET global_position = (SELECT pa FROM swap) WHERE global_position = (SELECT pb FROM swap);
       UPDATE rewind.events SET global_position = (SELECT pb FROM swap) WHERE global_position = 9007199254740990`,
    );

    for (const [kind, tenantId] of Object.entries(tenants)) {
      const chains = await auditors[kind]!('GET', '/v1/audit/chains');
      expect(chains.status).toBe(200);
      expect(chains.body.ok, `${kind}: ${JSON.stringify(chains.body)}`).toBe(false);
      expect(chains.body.firstBroken.streamId).toMatch(new RegExp(`^session:${tenantId}:`));
      // No position in the whole log: it would tell the tenant how much every other tenant wrote.
      expect(chains.body.firstBroken).not.toHaveProperty('position');
      expect(chains.body.firstBroken.problem).not.toMatch(/position \d/);
      const verify = await auditVerify('--tenant', tenantId);
      expect(verify.code, `${kind}: ${verify.out}`).toBe(1);
      expect(verify.out).toContain(`first broken link at session:${tenantId}:`);
    }
    await stop();
  });
});
