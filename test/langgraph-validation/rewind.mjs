// The repository's built packages, loaded by Node itself (they are CommonJS, found through the
// workspace links of the repository's node_modules): what `npm run build` made is what runs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const { Rewind } = require('@rewind/embedded');
export const { RewindCheckpointSaver } = require('@rewind/langgraph');
export const { RewindHttpCheckpointSaver } = require('@rewind/langgraph/http');
export const { createRewindClient } = require('@rewind/client');

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The real API (apps/api/dist/main.js) in its own process, on SQLite in a fresh data directory. */
export async function startApi() {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-lg-validation-'));
  const adminKey = `lg-validation-${randomBytes(12).toString('hex')}`;
  const child = spawn(process.execPath, [join(root, 'apps/api/dist/main.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REWIND_DATA_DIR: dataDir, REWIND_ADMIN_KEY: adminKey, REWIND_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 30_000; ; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`the API exited at start:\n${output}`);
    const up = await globalThis.fetch(`${baseUrl}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the API did not answer on ${baseUrl} within 30 s:\n${output}`);
    }
  }
  /** A client of a tenant of its own: each checkpointer of the suite starts with no threads. */
  const freshTenant = async () => {
    const response = await globalThis.fetch(`${baseUrl}/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'langgraph-validation', tenantId: `lg-${randomBytes(6).toString('hex')}` }),
    });
    if (response.status !== 201) throw new Error(`POST /v1/keys answered ${response.status}: ${await response.text()}`);
    const { key } = await response.json();
    return createRewindClient({ baseUrl, apiKey: key });
  };
  return { baseUrl, freshTenant, stop };
}
