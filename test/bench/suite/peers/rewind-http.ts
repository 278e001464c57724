/** The real Rewind API (createApp, as `npm start` builds it), listening on a free local port in this process. */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@rewind/config';
import { createApp } from '@rewind/api';
import { SessionService } from '@rewind/engine';
import type { TestDatabase } from '../../../support/postgres';
import { createBenchDatabase } from '../databases';
import type { StoreName } from '../results';

export interface RunningApi {
  baseUrl: string;
  apiKey: string;
  store: StoreName;
  databaseUrl?: string;
  dataDir: string;
  description: string;
  /** The session state cache now: events' worth held (bounded by REWIND_STATE_CACHE_EVENTS) and sessions. */
  stateCache(): { events: number; sessions: number };
  close(): Promise<void>;
}

export async function startRewindApi(store: StoreName, run: string, purpose = 'api', extraEnv: Record<string, string> = {}): Promise<RunningApi> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-bench-api-'));
  const apiKey = randomBytes(16).toString('hex');
  let db: TestDatabase | undefined;
  // REWIND_EGRESS_ALLOW: the benchmark's compensators (W6) listen on this machine.
  const env: Record<string, string> = {
    REWIND_DATA_DIR: dataDir,
    REWIND_ADMIN_KEY: apiKey,
    REWIND_LOG_LEVEL: 'error',
    PORT: '0',
    HOST: '127.0.0.1',
    REWIND_EGRESS_ALLOW: '127.0.0.0/8,::1',
  };
  // The bench measures the service's ceiling, which a per-key rate limit would hide.
  env.REWIND_RATE_LIMIT_PER_SECOND = '0';
  Object.assign(env, extraEnv);
  if (store === 'postgres') {
    db = await createBenchDatabase(run, purpose);
    env.REWIND_STORE = 'postgres';
    env.DATABASE_URL = db.url;
  }
  const config = loadConfig(env);
  // Memory reads its settings from process.env when the app is built (REWIND_MEMORY, …): set the extras there for that moment.
  const saved = Object.fromEntries(Object.keys(extraEnv).map((k) => [k, process.env[k]]));
  Object.assign(process.env, extraEnv);
  const { app } = await createApp(config).finally(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const repository = app.get(SessionService).repository;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    store,
    ...(db ? { databaseUrl: db.url } : {}),
    dataDir,
    description:
      store === 'postgres'
        ? `Rewind API (createApp: Fastify + NestJS, PostgresEventStore pool ${config.pgPoolSize}, snapshots every ${config.snapshotEvery})`
        : `Rewind API (createApp: Fastify + NestJS, SQLite WAL synchronous=${config.sqliteSynchronous}, snapshots every ${config.snapshotEvery})`,
    stateCache: () => ({ events: repository.cachedEvents, sessions: repository.cachedSessions }),
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      await db?.drop();
    },
  };
}
