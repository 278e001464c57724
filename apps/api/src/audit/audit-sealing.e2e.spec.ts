import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog, type EventStore } from '@rewind/event-store';
import { SqliteSealStore } from '@rewind/event-store/sqlite';
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
