import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_STORES, storeEnv } from '../support/postgres';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 28, item 1: with REWIND_WORKSPACE_ROOT set, a tenant with a write key declared a
 * `workspace.file` call over HTTP with the inline `tool:workspace.file` compensation and had the
 * undo delete or overwrite files. Only a change the worker's workspace tool made is undone now.
 */
describe.each(E2E_STORES)('workspace files cannot be reached by a declared call, on the %s store', (storeName) => {
  let t: TestApp;
  let cleanup: () => Promise<void> = async () => undefined;
  const base = mkdtempSync(join(tmpdir(), 'rewind-adv-ws-'));
  const root = join(base, 'ws');
  const blobDir = join(base, '.rewind-blobs');
  const planted = Buffer.from('planted by the attacker');
  const plantedHash = createHash('sha256').update(planted).digest('hex');
  const victims = [join(root, 'victim.txt'), join(root, 'default', 'victim.txt'), join(root, 'other-tenant', 'victim.txt')];

  beforeAll(async () => {
    for (const file of victims) {
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, 'precious');
    }
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    t = await startTestApp({ ...store.env, REWIND_WORKSPACE_ROOT: root });
    // The content the overwrite would put back, as if an earlier change had kept it.
    mkdirSync(blobDir, { recursive: true });
    writeFileSync(join(blobDir, plantedHash), planted);
  });
  afterAll(async () => {
    await t?.close();
    await cleanup();
    rmSync(base, { recursive: true, force: true });
  });

  const forged = [
    ['delete', { path: 'victim.txt', previous: null, next: null }],
    ['overwrite', { path: 'victim.txt', previous: plantedHash, next: null }],
    ['another tenant’s folder', { path: '../other-tenant/victim.txt', previous: null, next: null }],
    ['a made-up proof', { path: 'victim.txt', previous: null, next: null, proof: 'ab'.repeat(32) }],
  ] as const;

  it.each(forged)('a declared call cannot undo into a workspace file (%s)', async (_, change) => {
    const id = `adv-${randomUUID().slice(0, 8)}`;
    expect((await t.http('POST', '/v1/sessions', { sessionId: id })).status).toBe(201);
    const declared = await t.http('POST', `/v1/sessions/${id}/tool-calls`, {
      toolCallId: 'w1',
      tool: 'workspace.file',
      input: change,
      effect: {
        kind: 'reversible',
        compensation: { channel: 'inline', target: 'tool:workspace.file', payload: { input: '{{input}}', output: '{{output}}' } },
        retry: { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 10, timeoutMs: 2000 },
      },
    });
    // Declaring is not refused (a client may record anything it did); undoing it never touches files.
    if (declared.status === 201) {
      await t.http('POST', `/v1/sessions/${id}/tool-calls/w1/succeed`, { output: change });
      const undo = await t.http('POST', `/v1/sessions/${id}/undo`, { waitMs: 5000 });
      expect([200, 202]).toContain(undo.status);
      const events = (await t.http('GET', `/v1/sessions/${id}/events`)).body.events as { type: string; data: { error?: string } }[];
      const outcome = events.find((e) => e.type === 'CompensationApplied' || e.type === 'CompensationFailed')!;
      expect(outcome.type).toBe('CompensationFailed');
      expect(outcome.data.error).toMatch(/not made by the worker's workspace tool/);
    } else expect(declared.status).toBe(400);
    for (const file of victims) expect(readFileSync(file, 'utf8'), file).toBe('precious');
  });
});
