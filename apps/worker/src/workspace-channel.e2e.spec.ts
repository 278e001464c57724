import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '@rewind/domain';
import type { CommandEnvelope, SigningKey } from '@rewind/messaging';
import { commandMessage, type CommandResultMessage } from '@rewind/messaging';
import { KafkaMessageBus } from '@rewind/messaging/kafka';
import { collect, deploymentTestTopics, describeWithKafka, KAFKA_TEST_BROKERS, kafkaDeploymentEnv, testLogger, until } from '@rewind/messaging/kafka/testing';
import { PostgresKafkaSigningSecretStore } from '@rewind/messaging/postgres';
import { SqliteKafkaSigningSecretStore } from '@rewind/messaging/sqlite';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres';
import { startTestApp } from '../../../test/support/test-app';
import { databaseFile, startWorker, type Worker } from './worker';
import { loadWorkerConfig } from './worker-config';

/** The store's environment for the worker, and a signing key of tenant "acme" in that store. */
async function storeFor(store: 'sqlite' | 'postgres', dataDir: string): Promise<{ env: Record<string, string>; key: SigningKey; drop(): Promise<void> }> {
  if (store === 'sqlite') {
    const keys = new SqliteKafkaSigningSecretStore(databaseFile(dataDir));
    const key = await keys.create({ tenantId: 'default' });
    await keys.close();
    return { env: {}, key, drop: async () => undefined };
  }
  const db: TestDatabase = await createTestDatabase('rewind_ws');
  const pool = new Pool({ connectionString: db.url, max: 1 });
  const key = await new PostgresKafkaSigningSecretStore(pool).create({ tenantId: 'default' });
  await pool.end();
  return { env: { REWIND_STORE: 'postgres', DATABASE_URL: db.url }, key, drop: () => db.drop() };
}

// Seed 004's RollbackManager in distributed mode, all real: the broker, the worker, its store, the files (and the API).
describeWithKafka('the worker’s workspace channel (Kafka commands, real files)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  // The rollback over Kafka is carried out by the worker's saga; over HTTP by the API's, which sees the same folder.
  describe.each([
    ['sqlite', 'kafka'],
    ['postgres', 'http'],
  ] as const)('on the %s store, rolled back over %s', (storeName, rollbackOver) => {
    it('changes files under the root, refuses paths outside it with nothing recorded, and a rollback puts every file back', async () => {
      const base = mkdtempSync(join(tmpdir(), 'rewind-ws-worker-'));
      cleanups.push(() => rmSync(base, { recursive: true, force: true }));
      const dataDir = join(base, 'data');
      const workspaceRoot = join(base, 'ws');
      const root = join(workspaceRoot, 'default'); // tenant default's own folder
      mkdirSync(dataDir);
      mkdirSync(join(root, 'plan'), { recursive: true });
      mkdirSync(join(base, 'outside'));
      writeFileSync(join(root, 'notes.md'), 'original');
      writeFileSync(join(root, 'draft.md'), 'draft');
      writeFileSync(join(base, 'outside', 'secret'), 'keep out');
      symlinkSync(join(base, 'outside'), join(root, 'linked-dir'));

      const store = await storeFor(storeName, dataDir);
      cleanups.push(() => store.drop());
      const topics = deploymentTestTopics('ws');
      const worker: Worker = await startWorker(
        loadWorkerConfig({
          ...store.env,
          ...kafkaDeploymentEnv(topics),
          REWIND_DATA_DIR: dataDir,
          REWIND_WORKER_HTTP: 'off',
          REWIND_WORKER_PROJECTIONS: 'off',
          REWIND_MEMORY: 'off',
          REWIND_WORKSPACE_ROOT: workspaceRoot,
          REWIND_WORKSPACE_RETENTION_HOURS: '168',
        }),
        () => testLogger,
      );
      cleanups.push(() => worker.stop());
      expect(worker.workspace?.files.root).toBe(workspaceRoot);

      const bus = new KafkaMessageBus({ brokers: KAFKA_TEST_BROKERS, logger: testLogger, clientLogLevel: 'error' });
      cleanups.push(() => bus.close());
      const results = await collect(bus, topics.results);
      cleanups.push(() => results.subscription.close());
      const outcomes = () => results.messages.map((m) => JSON.parse(m.value) as CommandResultMessage);
      const send = async (type: CommandEnvelope['type'], payload: Record<string, JsonValue>) => {
        const envelope: CommandEnvelope = { commandId: randomUUID(), type, tenantId: 'default', sessionId: 'agent', payload };
        await bus.publish(topics.commands, [commandMessage(envelope, store.key)]);
        await until(() => outcomes().some((o) => o.commandId === envelope.commandId), `the result of ${type}`, 40_000);
        return outcomes().find((o) => o.commandId === envelope.commandId)!;
      };
      const change = (input: Record<string, JsonValue>) => send('StartToolCall', { toolCallId: randomUUID(), tool: 'workspace.file', input });

      expect((await send('StartSession', {})).status).toBe('applied');
      expect((await send('CreateCheckpoint', { label: 'start' })).status).toBe('applied');
      const stream = 'session:default:agent';
      const before = (await worker.store.readStream(stream)).length;

      // Refused at the edge: nothing recorded, nothing outside the root touched.
      for (const path of ['../outside/x', 'plan/../../outside/x', join(base, 'outside', 'x'), 'linked-dir/x']) {
        const refused = await change({ path, content: 'x' });
        expect(refused, path).toMatchObject({ status: 'rejected', error: { code: 'workspace_path_refused', details: [{ field: 'payload.input.path' }] } });
        expect(refused.error!.message).toContain(`Refused workspace path "${path}"`);
      }
      expect((await change({ path: 'a.md', content: 5 })).error).toMatchObject({ code: 'validation_failed', details: [{ field: 'payload.input.content' }] });
      expect((await change({ path: 'missing.md', content: null })).error?.message).toContain('there is no such file to delete');
      expect(await worker.store.readStream(stream)).toHaveLength(before);
      expect(readdirSync(join(base, 'outside'))).toEqual(['secret']);

      // Create, update, delete, binary content, and a content already kept.
      const changes: Record<string, JsonValue>[] = [
        { path: 'plan/itinerary.md', content: 'day 1: Lisbon' },
        { path: 'notes.md', content: 'edited' },
        { path: 'draft.md', content: null },
        { path: 'photo.bin', content: Buffer.from([0, 255, 1]).toString('base64'), encoding: 'base64' },
        { path: 'copy.md', content: 'edited' },
      ];
      for (const input of changes) {
        expect(await change(input), String(input.path)).toMatchObject({ status: 'applied' });
      }
      expect(readFileSync(join(root, 'plan/itinerary.md'), 'utf8')).toBe('day 1: Lisbon');
      expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('edited');
      expect(readFileSync(join(root, 'photo.bin'))).toEqual(Buffer.from([0, 255, 1]));
      expect(existsSync(join(root, 'draft.md'))).toBe(false);
      // Kept by hash, once each: original, draft, day 1, edited, the photo.
      expect(readdirSync(worker.workspace!.files.blobDir).filter((name) => /^[0-9a-f]{64}$/.test(name))).toHaveLength(5);

      // Recorded as the library records them: the hashes, not the content (and the worker's proof).
      const events = await worker.store.readStream(stream);
      const started = events.filter((e) => e.type === 'ToolCallStarted').map((e) => e.data as { tool: string; input: Record<string, JsonValue> });
      expect(started.map((s) => s.tool)).toEqual(Array(5).fill('workspace.file'));
      expect(started[1]!.input).toEqual({
        path: 'notes.md',
        previous: expect.stringMatching(/^[0-9a-f]{64}$/),
        next: expect.stringMatching(/^[0-9a-f]{64}$/),
        proof: expect.stringMatching(/^[0-9a-f]{64}$/), // the worker's provenance: only such a change is undone
      });
      expect(started[2]!.input).toMatchObject({ path: 'draft.md', next: null });
      expect(events.filter((e) => e.type === 'ToolCallSucceeded')).toHaveLength(5);

      if (rollbackOver === 'kafka') expect((await send('Rollback', { toCheckpoint: 'start' })).status).toBe('applied');
      else {
        const api = await startTestApp({ ...store.env, REWIND_DATA_DIR: dataDir, REWIND_MEMORY: 'off', REWIND_WORKSPACE_ROOT: workspaceRoot });
        cleanups.push(() => api.close());
        expect((await api.http('POST', '/v1/sessions/agent/rollback', { toCheckpoint: 'start', waitMs: 20_000 })).status).toBe(200);
      }
      await until(async () => (await worker.store.readStream(stream)).some((e) => e.type === 'RollbackCompleted'), 'the rollback to complete', 40_000);
      expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('original');
      expect(readFileSync(join(root, 'draft.md'), 'utf8')).toBe('draft');
      for (const gone of ['plan/itinerary.md', 'photo.bin', 'copy.md']) expect(existsSync(join(root, gone)), gone).toBe(false);
      expect(readFileSync(join(base, 'outside', 'secret'), 'utf8')).toBe('keep out');
      const compensated = (await worker.store.readStream(stream)).filter((e) => e.type === 'CompensationApplied');
      expect(compensated).toHaveLength(5);
    });
  });
});
