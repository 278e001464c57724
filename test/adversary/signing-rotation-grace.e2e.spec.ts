import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@rewind/cli';
import { commandMessage, decodeCommand, type CommandEnvelope } from '@rewind/messaging';
import { openBackend, type Backend } from '@rewind/runtime';
import { loadWorkerConfig } from '@rewind/worker';
import { E2E_STORES, storeEnv } from '../support/postgres';

/**
 * Issue 28, item 7 ("rotation grace kept across rotations"), for Kafka signing keys: the stores
 * kept one previous secret, so a second `signing-keys rotate` made the worker refuse, at once,
 * the producers still being redeployed with the first rotation's secret. Every replaced secret
 * now keeps its own grace. The worker's own store and command decoding; the operator's CLI.
 */
describe.each(E2E_STORES.filter((s) => s !== 'eventstoredb'))("Kafka signing keys keep each rotation's grace, on the %s store", (storeName) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-signing-grace-'));
  let env: Record<string, string>;
  let cleanup: () => Promise<void> = async () => undefined;
  let backend: Backend;

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    env = { ...store.env, REWIND_DATA_DIR: dataDir, REWIND_WORKER_HTTP: 'off' };
    backend = await openBackend(loadWorkerConfig(env));
  });
  afterAll(async () => {
    await backend?.close();
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function rotate(keyId: string, grace: number): Promise<string> {
    let out = '';
    const io = { stdout: { write: (chunk: string) => void (out += chunk) }, stderr: { write: () => undefined }, env };
    expect(await runCli(['signing-keys', 'rotate', '--key', keyId, '--grace', String(grace)], io)).toBe(0);
    return out.trim().split(' ')[1]!; // "<keyId> <new secret>
  }

  /** What the worker does with a command signed with `secret`: accepted, or why not. */
  async function workerAccepts(keyId: string, secret: string): Promise<true | string> {
    const envelope = { commandId: randomUUID(), tenantId: 'acme', sessionId: 'orders', type: 'PopTask' } as CommandEnvelope;
    const message = commandMessage(envelope, { keyId, secret });
    try {
      await decodeCommand(message.value, message.headers as Record<string, string>, backend.signingKeys);
      return true;
    } catch (error) {
      return (error as Error).message;
    }
  }

  it("a second rotation does not cut the first one's grace short", async () => {
    const first = await backend.signingKeys.create({ tenantId: 'acme', name: 'orders producer' });
    expect(await workerAccepts(first.keyId, first.secret)).toBe(true);
    const second = await rotate(first.keyId, 3600);
    const third = await rotate(first.keyId, 0);
    expect(await workerAccepts(first.keyId, first.secret)).toBe(true); // its hour of grace still runs
    expect(await workerAccepts(first.keyId, second)).toMatch(/does not match/); // replaced with no grace: refused at once
    expect(await workerAccepts(first.keyId, third)).toBe(true);
  });

  it('revoking the key ends every replaced secret too', async () => {
    const key = await backend.signingKeys.create({ tenantId: 'acme', name: 'revoked producer' });
    const second = await rotate(key.keyId, 3600);
    await rotate(key.keyId, 3600);
    expect([await workerAccepts(key.keyId, key.secret), await workerAccepts(key.keyId, second)]).toEqual([true, true]);
    expect(await backend.signingKeys.revoke(key.keyId)).toBe(true);
    expect(await workerAccepts(key.keyId, key.secret)).toMatch(/unknown, revoked or expired/);
  });
});
