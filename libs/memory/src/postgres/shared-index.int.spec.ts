import { SessionRepository, SessionService } from '@rewind/engine';
import { PostgresCheckpointStore, PostgresEventStore } from '@rewind/event-store/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/postgres';
import { DeterministicRewriter } from '../deterministic-rewriter';
import type { EmbeddingModel, EmbedOptions } from '../embedding-model';
import { EngineSessionPaths } from '../engine-session-paths';
import { MemoryIndexer } from '../memory-indexer';
import { MemoryRecall } from '../recall';
import { memoryConfigFromEnv, sharedPostgresIndex } from '../runtime';
import { PostgresPolicyStore } from './postgres-policy-store';

const D = 32;

/** A stand-in model: words hashed into D dimensions (no ONNX); counts the passages it embeds, per text. */
class CountingModel implements EmbeddingModel {
  readonly embedded = new Map<string, number>();

  async info() {
    return { id: 'counting-model', dimensions: D };
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    return texts.map((text) => {
      if (options.kind !== 'query') this.embedded.set(text, (this.embedded.get(text) ?? 0) + 1);
      const v = new Float32Array(D);
      for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) v[[...word].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % D]! += 1;
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
  }

  async close(): Promise<void> {}
}

/**
 * One "process" of a deployment on REWIND_STORE=postgres: its own pools (event store, memory index),
 * its own model, an indexer under the shared index's advisory lock, and recall over the shared index.
 */
async function openProcess(url: string) {
  const store = await PostgresEventStore.open({ connectionString: url, poolSize: 3 });
  const sessions = new SessionService(new SessionRepository(store, { snapshotEvery: 0 }));
  const config = memoryConfigFromEnv({ REWIND_STORE: 'postgres', DATABASE_URL: url, REWIND_EMBEDDING_MODEL: 'counting-model' }, '/nonexistent');
  const { index, indexing } = sharedPostgresIndex(config);
  const model = new CountingModel();
  const policies = new PostgresPolicyStore(store.pool);
  const checkpoints = new PostgresCheckpointStore(store.pool);
  const indexer = new MemoryIndexer({ index, model, policies, store, checkpoints, pollIntervalMs: 50, ...indexing });
  const recall = new MemoryRecall({ index, model, paths: new EngineSessionPaths(sessions), rewriter: new DeterministicRewriter(), policies });
  await index.open(await model.info());
  const ask = async (query: string) => (await recall.recall({ tenantId: 't1', sessionId: 'trip', query, k: 5, rewrite: false })).hits.map((h) => h.text);
  return {
    store,
    sessions,
    model,
    indexer,
    index,
    ask,
    say: (content: string) => sessions.execute({ tenantId: 't1', actor: 'test' }, 'trip', { type: 'RecordMessage', role: 'user', content }),
    async close() {
      await indexer.stop();
      await index.close();
      await store.close();
    },
  };
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the memory index in the shared PostgreSQL database', () => {
  let db: TestDatabase;
  let processes: Awaited<ReturnType<typeof openProcess>>[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('rewind_memory_shared');
    processes = [await openProcess(db.url), await openProcess(db.url), await openProcess(db.url)];
    // The checkpoint table is made at first use (outside migrations): made here once, before the processes race for it.
    await new PostgresCheckpointStore(processes[0]!.store.pool).load('warm-up');
  });
  afterAll(async () => {
    for (const p of processes) await p.close();
    await db?.drop();
  });

  it('two indexers on one database index each item once (one holds the lock, the other stands by), and every process recalls it', async () => {
    const [a, b, c] = processes as [(typeof processes)[0], (typeof processes)[0], (typeof processes)[0]];
    await a.sessions.execute({ tenantId: 't1', actor: 'test' }, 'trip', { type: 'StartSession', sessionId: 'trip' });
    const said = ['We booked the Avenida hotel in Lisbon for three nights.', 'The flight to Porto leaves at seven in the morning.'];
    for (const text of said) await a.say(text);
    a.indexer.start();
    b.indexer.start();
    await eventually(async () => (await a.index.count()) === 2 && (await a.index.pendingVectors!()).items === 0);
    // Each passage embedded once in all, by one of the two.
    const embeddings = (text: string) => (a.model.embedded.get(text) ?? 0) + (b.model.embedded.get(text) ?? 0);
    expect(said.map(embeddings)).toEqual([1, 1]);
    expect([a.model.embedded.size, b.model.embedded.size].sort()).toEqual([0, 2]);
    // Both indexers recall it, and so does a process that never indexed (c: recall only).
    for (const p of [a, b, c]) expect(await p.ask('Which hotel in Lisbon?')).toContain(said[0]);
  });

  it('when the indexing process stops, another takes over, and a process that is not the indexer recalls what it indexed', async () => {
    const [a, b, c] = processes as [(typeof processes)[0], (typeof processes)[0], (typeof processes)[0]];
    const holder = a.model.embedded.size > 0 ? a : b;
    const standby = holder === a ? b : a;
    await holder.indexer.stop();
    const text = 'Remember that the museum pass costs forty euros.';
    await c.say(text);
    await eventually(async () => (await c.ask('How much is the museum pass?')).includes(text));
    expect(standby.model.embedded.get(text)).toBe(1);
    expect(holder.model.embedded.get(text)).toBeUndefined();
  });
});
