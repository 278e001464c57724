import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@rewind/config';
import { createApp } from '@rewind/api';

/** One JSON log line as the API writes it. */
export interface LogLine {
  level: string;
  time: string;
  msg: string;
  context?: string;
  requestId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  durationMs?: number;
}

/** The real API with its log lines captured (the same JSON that goes to stdout). */
export async function startLoggedApp(level: string, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-logs-'));
  const adminKey = `test-admin-${randomBytes(12).toString('hex')}`;
  const raw: string[] = [];
  const config = loadConfig({ ...env, REWIND_DATA_DIR: dataDir, REWIND_ADMIN_KEY: adminKey, REWIND_LOG_LEVEL: level, PORT: '0' });
  const { app } = await createApp(config, { logDestination: { write: (line: string) => void raw.push(line) } });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  return {
    app: app as NestFastifyApplication,
    base,
    adminKey,
    raw,
    lines: () => raw.map((l) => JSON.parse(l) as LogLine),
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
