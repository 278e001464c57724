import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase, withAdminClient } from './postgres-test-database';

const exists = (name: string) => withAdminClient(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);

async function connectTo(url: string): Promise<{ client: Client; errors: { code?: string }[] }> {
  const client = new Client({ connectionString: url });
  const errors: { code?: string }[] = [];
  client.on('error', (error) => errors.push(error as { code?: string }));
  await client.connect();
  return { client, errors };
}

// The real server. `pool.end()` resolves before its sockets close; a drop that forced them at once
// made a closing connection emit 57P01 that nobody listened to (CI failed on it, every test green).
describe('test databases', () => {
  it('are dropped once the suite’s connections have closed, not under a connection still closing', async () => {
    const db = await createTestDatabase('rewind_testdb');
    const { client, errors } = await connectTo(db.url);
    const dropped = db.drop();
    await sleep(300);
    expect(await exists(db.name)).toBe(true);
    await client.end();
    await dropped;
    expect(await exists(db.name)).toBe(false);
    expect(errors).toEqual([]);
  });

  it('are dropped even when a suite leaked a connection (which the server then ends)', async () => {
    const db = await createTestDatabase('rewind_testdb');
    const { errors } = await connectTo(db.url);
    await dropTestDatabase(db.name, 200);
    expect(await exists(db.name)).toBe(false);
    await expect.poll(() => errors[0]?.code).toBe('57P01');
  });
});
