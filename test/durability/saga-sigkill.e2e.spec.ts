import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TravelService } from '@rewind/demo';
import { httpClient } from '../support/http-client';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { kill9, startServerProcess, type ServerProcess } from '../support/server-process';

// The built server runs as a child process; SIGKILL lands at random points of running rollbacks.
describe.each(E2E_STORES)('durability on the %s store: rollbacks killed midway resume on restart and undo each effect exactly once', (storeName) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-saga-kill-'));
  const env: Record<string, string> = { REWIND_DATA_DIR: dataDir, REWIND_ADMIN_KEY: `saga-${randomBytes(12).toString('hex')}` };
  const travel = new TravelService();
  let cleanup: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const target = await storeEnv(storeName);
    Object.assign(env, target.env);
    cleanup = target.cleanup;
  });
  afterAll(async () => {
    await travel.stop();
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes every rollback after repeated kills, and every cancel took effect once', async () => {
    await travel.start();
    travel.delayMs = 30;
    let server: ServerProcess = await startServerProcess(env);
    let http = httpClient(server.baseUrl, env.REWIND_ADMIN_KEY);
    await http('PUT', '/v1/tools/book_hotels', {
      kind: 'reversible',
      compensation: { channel: 'http', target: `${travel.url}/hotels/{{output.bookingId}}/cancel` },
      retry: { maxAttempts: 50, baseDelayMs: 10, maxDelayMs: 100, timeoutMs: 2000 },
    });
    const sessions = Array.from({ length: 6 }, (_, i) => `kill-${i}`);
    const bookings: string[] = [];
    for (const s of sessions) {
      await http('POST', '/v1/sessions', { sessionId: s });
      for (let c = 0; c < 5; c++) {
        await http('POST', `/v1/sessions/${s}/tool-calls`, { toolCallId: `h${c}`, tool: 'book_hotels', input: { night: c } });
        const res = await fetch(`${travel.url}/hotels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        const { bookingId } = (await res.json()) as { bookingId: string };
        bookings.push(bookingId);
        expect((await http('POST', `/v1/sessions/${s}/tool-calls/h${c}/succeed`, { output: { bookingId } })).status).toBe(200);
      }
    }
    const rollbackIds: string[] = [];
    for (const s of sessions) {
      const res = await http('POST', `/v1/sessions/${s}/rollback`, { toVersion: 1 });
      expect(res.status).toBe(202);
      rollbackIds.push(res.body.rollbackId);
    }

    for (let kill = 0; kill < 3; kill++) {
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 60));
      await kill9(server);
      // The first kill lands while compensations are still running (each takes >= 30 ms, 5 per session).
      if (kill === 0) expect([...travel.cancellations.values()].length).toBeLessThan(bookings.length);
      server = await startServerProcess(env);
      http = httpClient(server.baseUrl, env.REWIND_ADMIN_KEY);
    }

    const deadline = Date.now() + 60_000;
    for (const rollbackId of rollbackIds) {
      for (;;) {
        const rollback = (await http('GET', `/v1/rollbacks/${encodeURIComponent(rollbackId)}`)).body;
        if (rollback.status === 'completed') break;
        expect(rollback.status).toBe('in_progress');
        if (Date.now() > deadline) throw new Error(`rollback ${rollbackId} did not complete: ${JSON.stringify(rollback)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    for (const bookingId of bookings) expect(travel.cancellations.get(bookingId)).toBe(1);
    for (const s of sessions) {
      const state = (await http('GET', `/v1/sessions/${s}`)).body;
      expect(state).toMatchObject({ head: 1, status: 'active', toolCalls: [] });
      const events = (await http('GET', `/v1/sessions/${s}/events?limit=1000`)).body.events as { type: string }[];
      expect(events.filter((e) => e.type === 'CompensationApplied')).toHaveLength(5);
      expect(events.filter((e) => e.type === 'RollbackCompleted')).toHaveLength(1);
    }
    await kill9(server);
  });
});
