import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@rewind/config';
import { createApp, type CreateAppOptions } from '@rewind/api';
import { httpClient, type Http } from './http-client';

export interface TestApp {
  app: NestFastifyApplication;
  baseUrl: string;
  dataDir: string;
  adminKey: string;
  /** A client authenticated with the admin key (tenant "default"). */
  http: Http;
  close(): Promise<void>;
}

/** The real API on a free port over a fresh embedded store; `options.logDestination` captures its log lines (else they go to stdout). */
/** The suites' compensators listen on this machine: tests allow loopback explicitly (a deployment refuses it by default). */
export const TEST_EGRESS_ALLOW = '127.0.0.0/8,::1';

export async function startTestApp(env: Record<string, string> = {}, options: CreateAppOptions = {}): Promise<TestApp> {
  const dataDir = env.REWIND_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'rewind-e2e-'));
  const adminKey = env.REWIND_ADMIN_KEY ?? `test-admin-${randomBytes(12).toString('hex')}`;
  const config = loadConfig({
    REWIND_LOG_LEVEL: 'error',
    REWIND_EGRESS_ALLOW: TEST_EGRESS_ALLOW,
    ...env,
    REWIND_DATA_DIR: dataDir,
    REWIND_ADMIN_KEY: adminKey,
    PORT: '0',
  });
  const { app } = await createApp(config, options);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    app,
    baseUrl,
    dataDir,
    adminKey,
    http: httpClient(baseUrl, adminKey),
    async close() {
      await app.close();
      if (!env.REWIND_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
