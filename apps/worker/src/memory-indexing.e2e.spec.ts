import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SessionRepository, SessionService } from '@rewind/engine';
import { SqliteEventStore } from '@rewind/event-store/sqlite';
import { deploymentTestTopics, describeWithKafka, kafkaDeploymentEnv, testLogger, uniqueName, until } from '@rewind/messaging/kafka/testing';
import { loadWorkerConfig } from './worker-config';
import { databaseFile, startWorker, type Worker } from './worker';

// Distributed mode as seed 003 draws it: committed events go to Kafka (relay), the worker's
// memory indexer consumes them; a real broker, the real local model.
describeWithKafka('the worker indexes long-term memory from rewind.events', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-worker-memory-'));
  const topics = deploymentTestTopics('memory-e2e');
  let worker: Worker | undefined;
  afterAll(async () => {
    await worker?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('indexes what agents say (not greetings), and recall over the worker-built index is branch-aware', async () => {
    process.env.KAFKA_MEMORY_GROUP_ID = uniqueName('memory');
    const config = loadWorkerConfig({
      ...kafkaDeploymentEnv(topics),
      REWIND_DATA_DIR: dataDir,
      REWIND_WORKER_PROJECTIONS: 'off',
    });
    worker = await startWorker(config, () => testLogger);
    const store = new SqliteEventStore({ filename: databaseFile(dataDir) });
    const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
    const caller = { tenantId: 'acme', actor: 'test' };
    await sessions.startSession(caller, { sessionId: 'trip' });
    await sessions.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'thanks!' });
    await sessions.execute(caller, 'trip', { type: 'RecordMessage', role: 'user', content: 'Our flight to Porto leaves at 7:40 from gate 12' });
    await sessions.execute(caller, 'trip', { type: 'RecordMessage', role: 'agent', content: 'The flight to Porto was moved to gate 31' });
    await sessions.execute(caller, 'trip', { type: 'MoveHead', kind: 'undo', steps: 1 });

    const memory = worker.memory!;
    expect(memory).toBeDefined();
    await until(async () => (await memory.runtime.indexer.status()).items >= 2, 'the worker to index the two messages', 60_000);
    expect((await memory.runtime.indexer.status()).items).toBe(2);
    const { hits } = await memory.runtime.recall.recall({ tenantId: 'acme', sessionId: 'trip', query: 'Which gate does the Porto flight leave from?' });
    expect(hits.map((h) => h.text)).toEqual(['Our flight to Porto leaves at 7:40 from gate 12']);

    // A shred recorded in the log reaches the worker's own index through rewind.events.
    await sessions.startSession(caller, { sessionId: 'kept' });
    await sessions.execute(caller, 'kept', { type: 'RecordMessage', role: 'user', content: 'The Plumbifora bakery opens at seven' });
    await sessions.execute(caller, 'trip', { type: 'RecordShredding', keyIds: [], reason: 'test' });
    await sessions.execute(caller, 'kept', { type: 'RecordMessage', role: 'user', content: 'The Plumbifora bakery closes at noon on Sundays' });
    // Sessions are different partitions: wait for each (bounded).
    await until(async () => (await memory.runtime.index.count({ tenantId: 'acme', sessionId: 'kept' })) === 2, 'the worker to index the kept session', 60_000);
    await until(async () => (await memory.runtime.index.count({ tenantId: 'acme', sessionId: 'trip' })) === 0, 'the worker to shred the trip', 60_000);
    const after = await memory.runtime.recall.recall({
      tenantId: 'acme',
      sessionId: 'kept',
      query: 'Which gate does the Porto flight leave from?',
      scope: 'tenant',
    });
    expect(after.hits.map((h) => h.text).filter((t) => t.includes('Porto'))).toEqual([]);
    await store.close();
  });
});
