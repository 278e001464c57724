import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStreamId } from '@rewind/engine';
import { commandMessage, type CommandEnvelope, type CommandResultMessage, type SigningKey } from '@rewind/messaging';
import { testLogger, until } from '@rewind/messaging/kafka/testing';
import { openBackend, type Backend } from '@rewind/runtime';
import { loadWorkerConfig, startWorker, type Worker } from '@rewind/worker';
import { E2E_STORES, storeEnv } from '../support/postgres';

/**
 * Issue 28, item 4 ("the same for Kafka commands"): the worker's command consumer checked JSON
 * shapes with the default limits only, whatever REWIND_MAX_JSON_KEYS_PER_OBJECT and
 * REWIND_MAX_JSON_NODES said — a deployment that lowered them for HTTP still parsed any
 * command up to the defaults. The worker now reads them from its environment.
 */
const wide = (keys: number) => Object.fromEntries(Array.from({ length: keys }, (_, i) => [`key-${i}`, 1]));

describe.each(E2E_STORES.filter((s) => s !== 'eventstoredb'))('Kafka commands get the JSON cost limits of the environment, on the %s store', (storeName) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-command-cost-'));
  let cleanup: () => Promise<void> = async () => undefined;
  let backend: Backend;
  let worker: Worker;
  let key: SigningKey;
  const results: CommandResultMessage[] = [];

  beforeAll(async () => {
    const store = await storeEnv(storeName);
    cleanup = store.cleanup;
    const config = loadWorkerConfig({
      ...store.env,
      REWIND_DATA_DIR: dataDir,
      REWIND_WORKER_HTTP: 'off',
      REWIND_MAX_JSON_KEYS_PER_OBJECT: '50',
      REWIND_MAX_JSON_NODES: '500',
    });
    backend = await openBackend(config);
    worker = await startWorker(config, () => testLogger, backend);
    key = await backend.signingKeys.create({ tenantId: 'acme' });
    await worker.bus.subscribe(worker.topics.commandResults, { groupId: 'results-reader', fromBeginning: true }, async (m) => {
      results.push(JSON.parse(m.value) as CommandResultMessage);
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await backend?.close();
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function send(envelope: Omit<CommandEnvelope, 'commandId' | 'tenantId'>): Promise<CommandResultMessage> {
    const command = { ...envelope, commandId: randomUUID(), tenantId: 'acme' } as CommandEnvelope;
    await worker.bus.publish(worker.topics.commands, [commandMessage(command, key)]);
    await until(() => results.some((r) => r.commandId === command.commandId), `the result of ${command.type}`, 20_000);
    return results.find((r) => r.commandId === command.commandId)!;
  }

  it('refuses a command over REWIND_MAX_JSON_KEYS_PER_OBJECT or REWIND_MAX_JSON_NODES unread, and applies one within them', async () => {
    expect((await send({ type: 'StartSession', sessionId: 'costly' })).status).toBe('applied');
    const tooWide = await send({ type: 'WriteMemory', sessionId: 'costly', payload: { key: 'wide', value: wide(60) } });
    expect(tooWide.status).toBe('rejected');
    expect(tooWide.error).toMatchObject({ code: 'validation_failed', details: [{ field: '(value)' }] });
    expect(tooWide.error!.message).toMatch(/more than 50 keys \(REWIND_MAX_JSON_KEYS_PER_OBJECT\)/);
    const tooMany = await send({ type: 'WriteMemory', sessionId: 'costly', payload: { key: 'many', value: Array.from({ length: 600 }, () => 0) } });
    expect(tooMany.status).toBe('rejected');
    expect(tooMany.error!.message).toMatch(/more than 500 values \(REWIND_MAX_JSON_NODES\)/);
    expect((await send({ type: 'WriteMemory', sessionId: 'costly', payload: { key: 'fine', value: wide(40) } })).status).toBe('applied');
    const events = await backend.events.readStream(sessionStreamId('acme', 'costly'));
    expect(events.map((e) => e.type)).toEqual(['SessionStarted', 'MemoryWritten']); // nothing of the refused commands persisted
  });
});
