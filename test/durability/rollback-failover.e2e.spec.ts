import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from '../support/http-client';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { kill9, startServerProcess, type ServerProcess } from '../support/server-process';

/** Cancels bookings once per Idempotency-Key; the first request for `hangOnce` is never answered (in flight when its replica dies). */
function compensator(hangOnce: string) {
  const requests = new Map<string, string[]>();
  const effects = new Map<string, number>();
  const outcomes = new Map<string, string>();
  const hung: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const booking = req.url!.split('/')[2]!;
    const key = String(req.headers['idempotency-key']);
    requests.set(booking, [...(requests.get(booking) ?? []), key]);
    if (booking === hangOnce && requests.get(booking)!.length === 1) return void hung.push(res);
    if (!outcomes.has(key)) {
      effects.set(booking, (effects.get(booking) ?? 0) + 1);
      outcomes.set(key, JSON.stringify({ cancelled: booking }));
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(outcomes.get(key));
  });
  return {
    requests,
    effects,
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    start: () => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
    stop: () => {
      hung.forEach((res) => res.destroy());
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

// Two built API processes on one PostgreSQL database, default settings; the one carrying an undo out is SIGKILLed and kept down.
describe('failover of rollbacks between API replicas on PostgreSQL', () => {
  const dataDirs = [mkdtempSync(join(tmpdir(), 'rewind-failover-a-')), mkdtempSync(join(tmpdir(), 'rewind-failover-b-'))];
  const adminKey = `failover-${randomBytes(12).toString('hex')}`;
  const travel = compensator('b2');
  const replicas: ServerProcess[] = [];
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await travel.start();
  });
  afterAll(async () => {
    for (const replica of replicas) if (replica.child.exitCode === null && replica.child.signalCode === null) await kill9(replica);
    await travel.stop();
    await db?.drop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a live replica finishes the undo of a killed one within 10 s, each effect once, and the session takes writes again', async () => {
    // Memory off: it has no part in this, and two embedding models loading at once slow the starts on a small machine.
    const env = (dataDir: string) => ({
      REWIND_STORE: 'postgres',
      DATABASE_URL: db.url,
      REWIND_DATA_DIR: dataDir,
      REWIND_ADMIN_KEY: adminKey,
      REWIND_MEMORY: 'off',
    });
    // One after the other: processes starting at once on a fresh database is another part of the issue.
    replicas.push(await startServerProcess(env(dataDirs[0]!)));
    replicas.push(await startServerProcess(env(dataDirs[1]!)));
    const [a, b] = replicas.map((replica) => httpClient(replica.baseUrl, adminKey)) as [ReturnType<typeof httpClient>, ReturnType<typeof httpClient>];

    expect(
      (
        await a('PUT', '/v1/tools/book_hotels', {
          kind: 'reversible',
          compensation: { channel: 'http', target: `${travel.url()}/cancel/{{output.bookingId}}` },
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, timeoutMs: 60_000 },
        })
      ).status,
    ).toBeLessThan(300);
    await a('POST', '/v1/sessions', { sessionId: 'trip' });
    for (const booking of ['b1', 'b2', 'b3']) {
      await a('POST', '/v1/sessions/trip/tool-calls', { toolCallId: booking, tool: 'book_hotels', input: {} });
      expect((await a('POST', `/v1/sessions/trip/tool-calls/${booking}/succeed`, { output: { bookingId: booking } })).status).toBe(200);
    }
    const requested = await a('POST', '/v1/sessions/trip/rollback', { toVersion: 1 });
    expect(requested.status).toBe(202);
    const rollbackId = requested.body.rollbackId as string;

    // Replica A undoes b3, then its request for b2 hangs; B refuses writes to the session meanwhile.
    await expect.poll(() => travel.requests.get('b2')?.length ?? 0, { timeout: 15_000 }).toBe(1);
    const refused = await b('POST', '/v1/sessions/trip/messages', { role: 'user', content: 'still there?' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('rollback_in_progress');

    await kill9(replicas[0]!);
    const killedAt = Date.now();
    for (;;) {
      const rollback = (await b('GET', `/v1/rollbacks/${encodeURIComponent(rollbackId)}`)).body;
      if (rollback.status === 'completed') break;
      expect(rollback.status).toBe('in_progress');
      if (Date.now() - killedAt > 15_000) throw new Error(`no live replica finished the undo in 15 s: ${JSON.stringify(rollback)}\n${replicas[1]!.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const tookMs = Date.now() - killedAt;
    // The lease (6 s by default) ran out at most 6 s after A's last renewal; B looks every 2 s.
    expect(tookMs).toBeLessThan(10_000);

    expect(Object.fromEntries(travel.effects)).toEqual({ b1: 1, b2: 1, b3: 1 });
    expect(travel.requests.get('b3')).toHaveLength(1); // recorded before the kill: never sent again
    expect(new Set(travel.requests.get('b2'))).toHaveProperty('size', 1); // in flight: sent again with the same key
    const events = (await b('GET', '/v1/sessions/trip/events?limit=1000')).body.events as { type: string }[];
    expect(events.filter((e) => e.type === 'CompensationApplied')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'RollbackCompleted')).toHaveLength(1);
    expect((await b('POST', '/v1/sessions/trip/messages', { role: 'user', content: 'back again' })).status).toBeLessThan(300);
    console.log(`rollback failover: finished by the live replica ${tookMs} ms after the SIGKILL`);
  });
});
