import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, type Http } from '../../../test/support/http-client';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres';
import { startServerProcess, type ServerProcess } from '../../../test/support/server-process';
import { apiProcessesRefusal } from './api-processes';

/** The API processes the primary has forked now (Linux: /proc lists a thread's children). */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number, output = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('REWIND_API_PROCESSES: which configurations may run several API processes', () => {
  const memoryInPostgres = { enabled: true, index: 'postgres' };
  it('allows any number on PostgreSQL with memory in PostgreSQL, Qdrant or off', () => {
    expect(apiProcessesRefusal({ apiProcesses: 4, store: 'postgres' }, memoryInPostgres)).toBeNull();
    expect(apiProcessesRefusal({ apiProcesses: 2, store: 'postgres' }, { enabled: true, index: 'qdrant' })).toBeNull();
    expect(apiProcessesRefusal({ apiProcesses: 2, store: 'postgres' }, { enabled: false, index: 'sqlite' })).toBeNull();
  });
  it('refuses more than one on the embedded stores and with memory in a SQLite file, naming the way out', () => {
    expect(apiProcessesRefusal({ apiProcesses: 1, store: 'sqlite' }, { enabled: true, index: 'sqlite' })).toBeNull();
    expect(apiProcessesRefusal({ apiProcesses: 2, store: 'sqlite' }, { enabled: true, index: 'sqlite' })).toMatch(
      /^REWIND_API_PROCESSES=2 needs REWIND_STORE=postgres: the embedded SQLite file takes one API process/,
    );
    expect(apiProcessesRefusal({ apiProcesses: 3, store: 'eventstoredb' }, memoryInPostgres)).toMatch(/needs REWIND_STORE=postgres/);
    expect(apiProcessesRefusal({ apiProcesses: 2, store: 'postgres' }, { enabled: true, index: 'sqlite' })).toMatch(
      /REWIND_MEMORY_INDEX=postgres.*REWIND_MEMORY=off/,
    );
  });
});

describe('REWIND_API_PROCESSES=2 on PostgreSQL: two API processes share one port (built API, real processes)', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let http: Http;
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-procs-'));
  const adminKey = `procs-${randomBytes(12).toString('hex')}`;

  beforeAll(async () => {
    database = await createTestDatabase('rewind_procs');
    server = await startServerProcess(
      {
        REWIND_STORE: 'postgres',
        DATABASE_URL: database.url,
        REWIND_DATA_DIR: dataDir,
        REWIND_ADMIN_KEY: adminKey,
        REWIND_MEMORY: 'off',
        REWIND_API_PROCESSES: '2',
        REWIND_LOG_LEVEL: 'log',
      },
      undefined,
      60_000,
    );
    http = httpClient(server.baseUrl, adminKey);
    await until(
      'both API processes listening',
      () => (server.output().match(/API process \d of 2, pid \d+/g)?.length === 2 ? true : undefined),
      60_000,
      server.output,
    );
  }, 120_000);

  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    for (const pid of server ? childPids(server.child.pid!) : []) process.kill(pid, 'SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves writes and reads from either process, each on its own connection: every turn kept once and in order', async () => {
    expect(childPids(server.child.pid!)).toHaveLength(2);
    const sessions = ['s-a', 's-b', 's-c', 's-d'];
    for (const sessionId of sessions) expect((await http('POST', '/v1/sessions', { sessionId })).status).toBe(201);
    // fetch opens a connection per concurrent request: the primary hands them to both processes.
    await Promise.all(
      sessions.map(async (sessionId) => {
        for (let turn = 1; turn <= 10; turn++) {
          const answer = await http('POST', `/v1/sessions/${sessionId}/messages`, { role: 'user', content: `turn ${turn}` });
          expect(answer.status).toBe(201);
        }
      }),
    );
    for (const sessionId of sessions) {
      const { body } = await http('GET', `/v1/sessions/${sessionId}/events?limit=100`);
      const contents = (body.events as { type: string; data: { content?: string } }[])
        .filter((e) => e.type === 'UserMessageReceived')
        .map((e) => e.data.content);
      expect(contents).toEqual(Array.from({ length: 10 }, (_, i) => `turn ${i + 1}`));
    }
    // The read models are shared (one projection runner under its lock), and read-your-writes holds through either process.
    const listed = (await http('GET', '/v1/sessions?limit=100')).body.items as { sessionId: string }[];
    expect(listed.map((s) => s.sessionId).sort()).toEqual(sessions);
  }, 60_000);

  it('replaces a process that dies, and keeps answering meanwhile', async () => {
    const [victim, survivor] = childPids(server.child.pid!);
    process.kill(victim!, 'SIGKILL');
    await until('the dead process gone', () => (alive(victim!) ? undefined : true), 10_000);
    expect((await http('POST', '/v1/sessions/s-a/messages', { role: 'user', content: 'after the death' })).status).toBe(201);
    const replaced = await until(
      'a replacement process',
      () => {
        const now = childPids(server.child.pid!);
        return now.length === 2 && !now.includes(victim!) && now.includes(survivor!) ? now : undefined;
      },
      60_000,
      server.output,
    );
    expect(replaced).toHaveLength(2);
    expect(server.output()).toMatch(new RegExp(`API process pid ${victim} exited with signal SIGKILL: starting another`));
    await until(
      'the replacement listening',
      () => (server.output().match(/API process \d of 2, pid \d+/g)?.length === 3 ? true : undefined),
      60_000,
      server.output,
    );
    const { body } = await http('GET', '/v1/sessions/s-a/events?limit=100');
    expect((body.events as { type: string }[]).filter((e) => e.type === 'UserMessageReceived')).toHaveLength(11);
  }, 90_000);

  it('stops every process on SIGTERM', async () => {
    const children = childPids(server.child.pid!);
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of children) expect(alive(pid)).toBe(false);
  }, 30_000);
});

describe('REWIND_API_PROCESSES=2 on the embedded SQLite default', () => {
  it('refuses to start, with one line saying why and what to do', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rewind-procs-sqlite-'));
    try {
      const child = spawn(process.execPath, [join(process.cwd(), 'apps/api/dist/main.js')], {
        env: { ...process.env, REWIND_DATA_DIR: dataDir, REWIND_API_PROCESSES: '2', REWIND_STORE: 'sqlite', PORT: '0', HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        'Rewind cannot start: REWIND_API_PROCESSES=2 needs REWIND_STORE=postgres: the embedded SQLite file takes one API process (set REWIND_API_PROCESSES=1, or use PostgreSQL).',
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
