import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * REWIND_STORE=eventstoredb with nothing listening at EVENTSTOREDB_URL (port 1 on the loopback: the
 * client's real connection attempt, refused by the kernel). No EventStoreDB server can be obtained
 * on this machine, so this is what the built entry points can be checked on here: each stops with
 * one line naming the variable, the password masked, never a stack trace.
 */
describe('the API, the worker and the CLI when EventStoreDB cannot be reached', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-esdb-down-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    ...process.env,
    REWIND_STORE: 'eventstoredb',
    EVENTSTOREDB_URL: 'esdb://admin:s3cret@127.0.0.1:1?tls=false',
    REWIND_DATA_DIR: dataDir,
    PORT: '0',
    REWIND_WORKER_HTTP: 'off',
    REWIND_MEMORY: 'off',
    REWIND_LOG_LEVEL: 'error',
  };
  const run = (script: string, args: string[] = []) => spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  const named = 'Cannot reach EventStoreDB at esdb://admin:***@127.0.0.1:1?tls=false';

  it.each([
    ['the API', 'apps/api/dist/main.js', [], 'Rewind cannot start: '],
    ['the worker', 'apps/worker/dist/main.js', [], 'The Rewind worker cannot start: '],
    ['the CLI', 'apps/cli/dist/main.js', ['audit', 'verify'], ''],
  ] as const)('%s stops with one line naming EVENTSTOREDB_URL, the password masked', (_name, script, args, lead) => {
    const result = run(script, [...args]);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain(`${lead}${named}`);
    expect(result.stderr).toContain('Set EVENTSTOREDB_URL');
    expect(result.stderr).not.toContain('s3cret');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses REWIND_STORE=eventstoredb without EVENTSTOREDB_URL before opening anything', () => {
    const result = spawnSync(process.execPath, ['apps/api/dist/main.js'], { env: { ...env, EVENTSTOREDB_URL: '' }, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Rewind cannot start: REWIND_STORE=eventstoredb needs EVENTSTOREDB_URL');
  });
});
