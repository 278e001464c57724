import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@rewind/cli';
import { Rewind } from '@rewind/embedded';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, item 9: `rewind memory rebuild` run beside a live API deleted the index file under
 * it — the API went on indexing into a deleted file, and everything it indexed after was lost.
 * The rebuild now refuses while an API, a worker or a library-mode process holds the index, and says what to do.
 */
describe.each(E2E_STORES.filter((s) => s !== 'eventstoredb'))('memory rebuild beside a live API, on the %s store', (storeName) => {
  let t: TestApp | undefined;
  let env: Record<string, string>;
  let dataDir: string;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    dataDir = mkdtempSync(join(tmpdir(), 'rewind-rebuild-live-'));
    // The per-process index file on both stores (what `memory rebuild` rebuilds; the shared PostgreSQL
    // index, REWIND_STORE=postgres's default, has no file to hold and is re-indexed as distributed-setup.md says).
    // (The in-process app's memory reads the process's environment.)
    process.env.REWIND_MEMORY_INDEX = 'sqlite';
    t = await startTestApp({ ...store.env, REWIND_DATA_DIR: dataDir, REWIND_MEMORY_INDEX: 'sqlite' });
    env = { ...store.env, REWIND_DATA_DIR: dataDir, REWIND_LOG_LEVEL: 'error', REWIND_MEMORY_INDEX: 'sqlite' };
    expect((await t.http('POST', '/v1/sessions', { sessionId: 'trip' })).status).toBe(201);
    expect((await t.http('POST', '/v1/sessions/trip/messages', { role: 'user', content: 'Find me a hotel in Lisbon' })).status).toBe(201);
  });
  afterAll(async () => {
    delete process.env.REWIND_MEMORY_INDEX;
    await t?.close();
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function rewind(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, env });
    return { code, stdout, stderr };
  }

  it('refuses while the API holds the index, leaving the file in place, and says what to do', async () => {
    const indexFile = join(dataDir, 'rewind.memory.db');
    expect(existsSync(indexFile)).toBe(true);
    const before = statSync(indexFile).ino;
    const refused = await rewind('memory', 'rebuild');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`The memory index ${indexFile} is open in the API (pid ${process.pid}`);
    expect(refused.stderr).toMatch(/rebuilding would delete the file under it/);
    expect(refused.stderr).toMatch(/Stop that process .* run `rewind memory rebuild` again/);
    expect(statSync(indexFile).ino).toBe(before); // not replaced
    // --verify changes nothing, so it runs beside the API.
    expect((await rewind('memory', 'rebuild', '--verify')).stderr).not.toMatch(/is open in/);
  });

  it('runs once the API has stopped', async () => {
    await t!.close();
    t = undefined;
    const rebuilt = await rewind('memory', 'rebuild');
    expect(rebuilt.stderr).not.toMatch(/is open in/);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ items: 1 });
  });
});

/**
 * The same in library mode: a process that opened `Rewind.open({ dataDir })` and recalled holds
 * the index as an API does, but did not mark it, so a rebuild beside it was not refused.
 */
describe('memory rebuild beside a library-mode process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-rebuild-library-'));
  const env = { REWIND_DATA_DIR: dataDir, REWIND_LOG_LEVEL: 'error' };
  let library: Rewind | undefined;
  afterAll(async () => {
    await library?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function rewind(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, env });
    return { code, stdout, stderr };
  }

  it('refuses while the library holds the index, and runs once it is closed', async () => {
    library = Rewind.open({ dataDir });
    const session = await library.startSession('trip');
    await session.say('user', 'Find me a hotel in Lisbon');
    expect((await session.recall('hotel in Lisbon', { rewrite: false })).hits).toHaveLength(1);
    const indexFile = join(dataDir, 'rewind.memory.db');
    const before = statSync(indexFile).ino;
    const refused = await rewind('memory', 'rebuild');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`The memory index ${indexFile} is open in the Rewind library (pid ${process.pid}`);
    expect(statSync(indexFile).ino).toBe(before); // not replaced
    await library.close();
    library = undefined;
    const rebuilt = await rewind('memory', 'rebuild');
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ items: 1 });
  });
});
