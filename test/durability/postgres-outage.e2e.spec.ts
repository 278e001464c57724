import { spawnSync } from 'node:child_process';
import { createServer, Socket, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { freePort } from '../support/server-process';
import { startTestApp, type TestApp } from '../support/test-app';

/** A TCP proxy to PostgreSQL that the test can cut, to make the database unreachable for real. */
class CuttableProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}
  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe('PostgreSQL outages: clean errors, 503 while down, no lost or doubled write', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('rewind_outage');
  });
  afterAll(async () => db.drop());

  it('refuses to start with a message naming the URL (password masked), not a stack trace', () => {
    const result = spawnSync(process.execPath, ['apps/api/dist/main.js'], {
      env: { ...process.env, REWIND_STORE: 'postgres', DATABASE_URL: 'postgres://rewind:s3cret@127.0.0.1:1/rewind', PORT: '0', REWIND_LOG_LEVEL: 'error' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Rewind cannot start: Cannot reach PostgreSQL at postgres://rewind:***@127.0.0.1:1/rewind');
    expect(result.stderr).not.toContain('s3cret');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    const missing = spawnSync(process.execPath, ['apps/api/dist/main.js'], {
      env: { ...process.env, REWIND_STORE: 'postgres', DATABASE_URL: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('REWIND_STORE=postgres needs DATABASE_URL');
  });

  it('answers 503 with Retry-After while the database is unreachable, then applies the retried write once', async () => {
    const target = new URL(db.url);
    const proxy = new CuttableProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
    await proxy.open();
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    const t: TestApp = await startTestApp({
      REWIND_STORE: 'postgres',
      DATABASE_URL: viaProxy.toString(),
      REWIND_ADMIN_KEY: `outage-${Date.now()}-key-long-enough`,
    });
    try {
      expect((await t.http('POST', '/v1/sessions', { sessionId: 'outage' })).status).toBe(201);
      await proxy.cut();
      const down = await t.http('PUT', '/v1/sessions/outage/memory/k', { value: 1 }, { 'Idempotency-Key': 'k-1' });
      expect([401, 503]).toContain(down.status); // the key check itself may be the query that fails
      if (down.status === 503) {
        expect(down.headers.get('retry-after')).toBe('1');
        expect(down.body.error.code).toBe('store_unavailable');
      }
      await proxy.open();
      let retried = await t.http('PUT', '/v1/sessions/outage/memory/k', { value: 1 }, { 'Idempotency-Key': 'k-1' });
      for (let i = 0; i < 20 && retried.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        retried = await t.http('PUT', '/v1/sessions/outage/memory/k', { value: 1 }, { 'Idempotency-Key': 'k-1' });
      }
      expect(retried.status).toBe(200);
      const again = await t.http('PUT', '/v1/sessions/outage/memory/k', { value: 1 }, { 'Idempotency-Key': 'k-1' });
      expect(again.body.version).toBe(retried.body.version);
      expect((await t.http('GET', '/v1/sessions/outage')).body).toMatchObject({ version: 2, memory: { k: 1 } });
    } finally {
      await t.close();
      await proxy.cut();
    }
  });
});
