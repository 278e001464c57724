import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '@rewind/domain';
import { DeterministicRewriter } from './deterministic-rewriter';
import { EngineSessionPaths } from './engine-session-paths';
import { setMemoryPolicy } from './memory-indexer';
import { OnnxEmbeddingModel } from './onnx';
import { MemoryRecall } from './recall';
import type { Reranker } from './reranker';
import { SqliteVectorIndex } from './sqlite-vec';
import { memoryFixture } from './testing';

// The real local model and the embedded index: what `npm start` runs.
const model = new OnnxEmbeddingModel({ model: 'all-minilm-l6-v2-q' });
afterAll(() => model.close());

describe('memory indexer and branch-aware recall (local model, sqlite-vec)', () => {
  let index: SqliteVectorIndex;
  let f: ReturnType<typeof memoryFixture>;

  beforeAll(() => model.info());
  beforeEach(async () => {
    index = new SqliteVectorIndex({ filename: ':memory:' });
    f = memoryFixture(model, index);
    await f.sessions.startSession(f.caller(), { sessionId: 'trip' });
  });

  it('indexes messages from the global log after its checkpoint, skips greetings, and is idempotent', async () => {
    await f.say('trip', 'user', 'hi');
    await f.say('trip', 'user', 'I booked Hotel Avenida in Lisbon for May');
    await f.say('trip', 'agent', 'Noted: Hotel Avenida, Lisbon, 3 to 7 May.');
    await f.indexer.catchUp();
    expect(await index.count()).toBe(2);
    const status = await f.indexer.status();
    expect(status).toMatchObject({ lag: 0, model: 'all-minilm-l6-v2-q', dimensions: 384, items: 2 });
    expect(status.checkpoint).toBe(await f.store.lastPosition());
    // At least once: a replay from an earlier checkpoint writes the same items, not new ones.
    await f.indexer.indexEvents(await f.store.readAll({ after: 0, limit: 100 }));
    expect(await index.count()).toBe(2);
  });

  it('does not recall what was rolled back, and recalls it again after a redo', async () => {
    await f.say('trip', 'user', 'Book me a hotel in Lisbon for May');
    await f.say('trip', 'agent', 'I booked Hotel Avenida in Lisbon, 120 euros a night.');
    await f.indexer.catchUp();
    const ask = () => f.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'Which hotel did we book in Lisbon?', k: 5 });
    expect((await ask()).hits.map((h) => h.text)).toContain('I booked Hotel Avenida in Lisbon, 120 euros a night.');

    await f.sessions.execute(f.caller(), 'trip', { type: 'MoveHead', kind: 'undo', steps: 1 });
    await f.indexer.catchUp();
    expect((await ask()).hits.map((h) => h.text)).not.toContain('I booked Hotel Avenida in Lisbon, 120 euros a night.');

    await f.sessions.execute(f.caller(), 'trip', { type: 'MoveHead', kind: 'redo' });
    expect((await ask()).hits.map((h) => h.text)).toContain('I booked Hotel Avenida in Lisbon, 120 euros a night.');
  });

  it('a new branch after a rollback recalls its own facts, not the abandoned ones; at= recalls as of a past version', async () => {
    const before = await f.say('trip', 'user', 'We plan a trip to Portugal in May');
    const abandoned = await f.say('trip', 'agent', 'The budget for the hotel is 500 euros.');
    await f.sessions.execute(f.caller(), 'trip', { type: 'MoveHead', kind: 'rollback', toVersion: before });
    await f.say('trip', 'agent', 'The budget for the hotel is 900 euros.');
    await f.indexer.catchUp();
    const now = await f.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'What is the hotel budget?', k: 5 });
    expect(now.hits.map((h) => h.text)).toEqual(expect.arrayContaining(['The budget for the hotel is 900 euros.']));
    expect(now.hits.map((h) => h.text)).not.toContain('The budget for the hotel is 500 euros.');
    const past = await f.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'What is the hotel budget?', k: 5, at: abandoned });
    expect(past.hits.map((h) => h.text)).toContain('The budget for the hotel is 500 euros.');
    expect(past.hits.map((h) => h.text)).not.toContain('The budget for the hotel is 900 euros.');
  });

  it('rewrites a follow-up from the recent turns and shows the query it used', async () => {
    await f.say('trip', 'user', 'Tell me about Hotel Avenida');
    await f.say('trip', 'agent', 'Hotel Avenida is on the main square; a room costs 120 euros a night.');
    await f.indexer.catchUp();
    const result = await f.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'what about its price?', k: 3 });
    expect(result.query).toBe('what about its price?');
    expect(result.rewrittenQuery).toMatch(/Hotel Avenida's price/);
    expect(result.rewriter).toBe('deterministic');
    expect(result.hits[0]!.text).toMatch(/120 euros/);
    const raw = await f.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'what about its price?', k: 3, rewrite: false });
    expect(raw.rewrittenQuery).toBe('what about its price?');
  });

  it('tenant-wide recall spans the tenant’s sessions, each on its own current path, never another tenant’s', async () => {
    await f.sessions.startSession(f.caller(), { sessionId: 'work' });
    await f.sessions.startSession(f.caller('t2'), { sessionId: 'other' });
    await f.say('work', 'user', 'My manager approved the Lisbon conference trip');
    const undone = await f.say('work', 'user', 'The Lisbon conference was moved to June');
    await f.say('other', 'user', 'The Lisbon conference is secret for tenant two', 't2');
    await f.sessions.execute(f.caller(), 'work', { type: 'MoveHead', kind: 'undo', steps: 1 });
    await f.indexer.catchUp();
    const result = await f.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'Lisbon conference', k: 10, scope: 'tenant' });
    expect(result.hits.map((h) => h.text)).toEqual(['My manager approved the Lisbon conference trip']);
    expect(result.hits[0]).toMatchObject({ sessionId: 'work', role: 'user' });
    expect(undone).toBeGreaterThan(0);
  });

  it('another tenant’s session is not found, and nothing is searched', async () => {
    const error = await f.recall.recall({ tenantId: 't2', sessionId: 'trip', query: 'hotel' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('not_found');
  });

  it('policy none: nothing of the session is indexed or recalled, and switching removes what was indexed', async () => {
    await f.say('trip', 'user', 'My passport number is X1234567');
    await f.indexer.catchUp();
    expect(await index.count({ tenantId: 't1', sessionId: 'trip' })).toBe(1);
    expect(await setMemoryPolicy({ policies: f.policies, index, indexer: f.indexer }, 't1', 'trip', 'none')).toEqual({ removedItems: 1 });
    await f.say('trip', 'user', 'My other passport number is Y7654321');
    await f.indexer.catchUp();
    expect(await index.count({ tenantId: 't1', sessionId: 'trip' })).toBe(0);
    expect((await f.recall.recall({ tenantId: 't1', sessionId: 'trip', query: 'passport number' })).hits).toEqual([]);
  });

  it('a re-ranker reorders the best hits, never brings back one off the path, and its failure keeps the fused order', async () => {
    await f.say('trip', 'user', 'We booked Hotel Avenida in Lisbon');
    await f.say('trip', 'agent', 'The train to Porto leaves at 9 from Santa Apolónia');
    await f.say('trip', 'user', 'Dinner is at Cervejaria Ramiro on Friday');
    await f.sessions.execute(f.caller(), 'trip', { type: 'MoveHead', kind: 'undo', steps: 1 });
    await f.indexer.catchUp();
    const deps = { index, model, paths: new EngineSessionPaths(f.sessions), rewriter: new DeterministicRewriter(), policies: f.policies };
    const ask = (reranker: Reranker) =>
      new MemoryRecall({ ...deps, reranker }).recall({ tenantId: 't1', sessionId: 'trip', query: 'Where do we sleep in Lisbon?', k: 3 });
    const fused = (await ask({ rerank: async () => null })).hits.map((h) => h.text);
    expect(fused[0]).toBe('We booked Hotel Avenida in Lisbon');
    const trains = await ask({ rerank: async (_q, passages) => passages.map((p) => (p.includes('train') ? 1 : 0)) });
    expect(trains.hits.map((h) => h.text)).toEqual(['The train to Porto leaves at 9 from Santa Apolónia', 'We booked Hotel Avenida in Lisbon']);
  });
});
