import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeEnv } from '../../../../test/support/postgres';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';

// Two API processes on one PostgreSQL database, each with its own data directory (two hosts).
describe('memory policies on PostgreSQL are shared by every process', () => {
  let cleanup: () => Promise<void> = async () => undefined;
  let databaseUrl: string;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    const target = await storeEnv('postgres');
    cleanup = target.cleanup;
    databaseUrl = target.env.DATABASE_URL!;
    const adminKey = `test-admin-shared-${Date.now()}`;
    first = await startTestApp({ ...target.env, REWIND_ADMIN_KEY: adminKey });
    second = await startTestApp({ ...target.env, REWIND_ADMIN_KEY: adminKey });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await cleanup();
  });

  it('a policy set through one process is in PostgreSQL and honoured by the other', async () => {
    expect((await first.http('POST', '/v1/sessions', { sessionId: 'quiet' })).status).toBe(201);
    const set = await first.http('PUT', '/v1/sessions/quiet/memory-policy', { policy: 'none' });
    expect(set.status).toBe(200);
    expect((await first.http('PUT', '/v1/memory/policy', { policy: 'persistent' })).status).toBe(200);

    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT tenant_id, session_id, policy FROM rewind.memory_policies ORDER BY session_id');
      expect(rows).toEqual([
        { tenant_id: 'default', session_id: '', policy: 'persistent' },
        { tenant_id: 'default', session_id: 'quiet', policy: 'none' },
      ]);
    } finally {
      await client.end();
    }

    // Written through both processes. Each process's indexer follows the whole log into its
    // own index file, from the checkpoint kept in that file, and reads the policy from
    // PostgreSQL: each index ends up with every item, and neither holds the quiet session.
    expect((await second.http('POST', '/v1/sessions/quiet/messages', { role: 'user', content: 'The Quixotrella gym locker opens with 7741' })).status).toBe(
      201,
    );
    expect((await second.http('POST', '/v1/sessions', { sessionId: 'loud' })).status).toBe(201);
    expect((await second.http('POST', '/v1/sessions/loud/messages', { role: 'user', content: 'The Plumbifora bakery opens at seven' })).status).toBe(201);
    expect((await first.http('POST', '/v1/sessions/loud/messages', { role: 'user', content: 'The Zanderwick ferry leaves from pier nine' })).status).toBe(201);
    const last = (await first.http('GET', '/v1/memory/status')).body.lastPosition as number;
    for (const app of [first, second]) {
      for (let i = 0; i < 600; i++) {
        const status = (await app.http('GET', '/v1/memory/status')).body;
        if (status.checkpoint >= last && status.model !== null && status.pendingVectors === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await app.http('GET', '/v1/memory/status')).body.checkpoint).toBeGreaterThanOrEqual(last);
    }
    for (const app of [first, second]) {
      const recall = async (sessionId: string, query: string) => (await app.http('POST', `/v1/sessions/${sessionId}/recall`, { query })).body.hits as unknown[];
      expect(await recall('quiet', 'locker code at the gym')).toEqual([]);
      expect(await recall('loud', 'When does the bakery open?')).toContainEqual(expect.objectContaining({ text: 'The Plumbifora bakery opens at seven' }));
      expect(await recall('loud', 'Where does the ferry leave from?')).toContainEqual(
        expect.objectContaining({ text: 'The Zanderwick ferry leaves from pier nine' }),
      );
    }
  });
});
