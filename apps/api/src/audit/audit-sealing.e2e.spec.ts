import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog, type EventStore } from '@rewind/event-store';
import { SqliteEventStore, SqliteSealStore } from '@rewind/event-store/sqlite';
import { httpClient } from '../../../../test/support/http-client';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { EVENT_STORE } from '../infrastructure/tokens';

describe('the API seals new events into the audit chains in the background', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REWIND_AUDIT_SEAL_INTERVAL_MS: '50' });
  });
  afterAll(() => t?.close());

  it('a few rounds after a write, audit verify covers it with nothing left unsealed', async () => {
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'sealed', title: 'sealed' })).status).toBe(201);
    expect((await t.http('PUT', '/v1/sessions/sealed/memory/k', { value: 'v' })).status).toBe(200);
    const store = t.app.get<EventStore>(EVENT_STORE);
    const seals = new SqliteSealStore(join(t.dataDir, 'rewind.db'));
    try {
      let result = await verifyLog(store, seals);
      // Waits for the sealer's rounds; what is asserted is the outcome, not how long it took.
      for (let i = 0; i < 200 && (result.unsealed > 0 || result.checked < 2); i++) {
        await new Promise((r) => setTimeout(r, 50));
        result = await verifyLog(store, seals);
      }
      expect(result).toMatchObject({ ok: true, unsealed: 0 });
      expect(result.checked).toBeGreaterThanOrEqual(2);
    } finally {
      await seals.close();
    }
  });
});

describe('GET /v1/audit/chains (audit scope)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REWIND_AUDIT_SEAL_INTERVAL_MS: '50' });
  });
  afterAll(() => t?.close());

  it("answers the tenant's chains to an audit key, the first broken link after tampering, and refuses a read key", async () => {
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'audited', title: 'audited' })).status).toBe(201);
    expect((await t.http('PUT', '/v1/sessions/audited/memory/k', { value: 'Paris' })).status).toBe(200);
    const auditor = httpClient(t.baseUrl, (await t.http('POST', '/v1/keys', { name: 'auditor', scopes: ['audit'] })).body.key);
    const reader = httpClient(t.baseUrl, (await t.http('POST', '/v1/keys', { name: 'dashboard', scopes: ['read'] })).body.key);
    expect((await reader('GET', '/v1/audit/chains')).status).toBe(403);
    let chains = (await auditor('GET', '/v1/audit/chains?sessionId=audited')).body;
    for (let i = 0; i < 200 && chains.unsealed > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      chains = (await auditor('GET', '/v1/audit/chains?sessionId=audited')).body;
    }
    expect(chains).toMatchObject({ ok: true, sessions: 1, checked: 2, unsealed: 0, firstBroken: null });
    expect((await auditor('GET', '/v1/audit/chains')).body).toMatchObject({ ok: true });
    expect((await auditor('GET', '/v1/audit/chains?sessionId=nope')).status).toBe(404);
    expect((await auditor('GET', '/v1/audit/chains?sessionId=a%2Fb')).status).toBe(400);

    const store = t.app.get<SqliteEventStore>(EVENT_STORE);
    store.db.prepare(`UPDATE events SET data = replace(data, 'Paris', 'Parjs') WHERE stream_id = 'session:default:audited'`).run();
    const broken = (await auditor('GET', '/v1/audit/chains?sessionId=audited')).body;
    expect(broken).toMatchObject({
      ok: false,
      firstBroken: { streamId: 'session:default:audited', streamVersion: 2, problem: expect.stringContaining('altered') },
    });
  });
});
